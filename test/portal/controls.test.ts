/**
 * Queue and message controls in a real browser (Debian Chromium through playwright-core) against a
 * real server: an operator suspends a queue from the Queues page and resumes it, the counts show the
 * waiting requests, failed requests nobody waited for appear as suspended messages, and the message
 * actions resend one to another target and edit and resend another; a viewer gets no buttons.
 * Takes docs/screenshots/queues.png and docs/screenshots/message-actions.png with UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

describe.skipIf(!hasChromium)(
  'portal queue and message controls in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)',
  () => {
    let home: string;
    let server: PortalServer;
    let browser: Browser;
    let page: Page;

    const folder = (name: string) => join(home, name);
    const recorded = (): string[] =>
      existsSync(folder('echo.jsonl'))
        ? readFileSync(folder('echo.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .map((line) => (JSON.parse((JSON.parse(line) as { data: string }).data) as { StringValue: string }).StringValue)
        : [];
    const fileService = (name: string, path: string, target: string) => ({
      name,
      classname: 'Conveyor.Service.FileInbound',
      settings: [
        { target: 'Adapter', name: 'FilePath', value: path },
        { target: 'Adapter', name: 'CallInterval', value: '0.2' },
        { target: 'Host', name: 'TargetConfigNames', value: target },
      ],
    });

    async function signIn(user: string, password: string): Promise<Page> {
      const opened = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      opened.setDefaultTimeout(15_000);
      await opened.goto(`${server.url}/#/queues`);
      await opened.getByLabel('User').fill(user);
      await opened.getByLabel('Password').fill(password);
      await opened.getByRole('button', { name: 'Sign in' }).click();
      return opened;
    }

    const cell = (item: string, column: string) => page.locator(`table[aria-label="Queues"] tr[data-item="${item}"] td.${column}`);

    beforeAll(async () => {
      execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
        cwd: repoRoot,
      });
      home = await mkdtemp(join(tmpdir(), 'conveyor-portal-controls-'));
      mkdirSync(folder('in'));
      mkdirSync(folder('bad'));
      server = await startPortalServer(home);
      const definition = {
        name: 'Controls.Production',
        items: [
          fileService('In', folder('in'), 'Echo'),
          fileService('BadIn', folder('bad'), 'Broken'),
          { name: 'Echo', classname: 'Conveyor.Operation.Echo', settings: [{ target: 'Host', name: 'FilePath', value: folder('echo.jsonl') }] },
          { name: 'Broken', classname: 'Conveyor.Operation.Echo', settings: [{ target: 'Host', name: 'FilePath', value: join(folder('missing'), 'x.jsonl') }] },
        ],
      };
      for (const [method, path, body] of [
        ['PUT', '/definition', { definition }],
        ['POST', '/start', { production: 'Controls.Production' }],
        ['PUT', '/users/ops', { password: 'ops-pw', role: 'operator' }],
        ['PUT', '/users/watcher', { password: 'watcher-pw', role: 'viewer' }],
      ] as const) {
        const reply = await server.api(method, path, body);
        if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
      }
      browser = await launchBrowser();
      page = await signIn('ops', 'ops-pw');
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (home) await rm(home, { recursive: true, force: true });
    });

    it('suspends a queue, shows its waiting requests and the suspended messages, and resumes it', async () => {
      const table = page.getByRole('table', { name: 'Queues' });
      await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(4);
      expect(await table.locator('tbody tr td:first-child').allTextContents()).toEqual(['In', 'BadIn', 'Echo', 'Broken']);
      // Services take no requests: no queue button on them.
      expect(await page.getByRole('button', { name: 'Suspend queue of In' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Suspend queue of Echo' }).click();
      await expect.poll(() => cell('Echo', 'queue-state').textContent(), { timeout: 15_000 }).toContain('suspended by ops');
      writeFileSync(join(folder('in'), 'a.txt'), 'first');
      writeFileSync(join(folder('in'), 'b.txt'), 'second');
      writeFileSync(join(folder('bad'), 'x1.txt'), 'one');
      writeFileSync(join(folder('bad'), 'x2.txt'), 'two');
      await expect.poll(() => cell('Echo', 'queued').textContent(), { timeout: 15_000 }).toBe('2');
      await expect.poll(() => cell('Broken', 'suspended-count').textContent(), { timeout: 15_000 }).toBe('2');
      await expect.poll(() => page.getByRole('table', { name: 'Suspended messages' }).locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
      expect(recorded()).toEqual([]);
      await page.screenshot({ path: join(screenshots, 'queues.png'), fullPage: true });

      await page.getByRole('button', { name: 'Resume queue of Echo' }).click();
      await expect.poll(() => cell('Echo', 'queue-state').textContent(), { timeout: 15_000 }).toBe('delivering' + 'Suspend');
      await expect.poll(() => recorded().sort(), { timeout: 15_000 }).toEqual(['first', 'second']);
      await expect.poll(() => cell('Echo', 'queued').textContent(), { timeout: 15_000 }).toBe('0');
    });

    it('resends a suspended message to another target, edits and resends the other, with links to the new messages', async () => {
      const suspended = page.getByRole('table', { name: 'Suspended messages' });
      const ids = (await suspended.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-id'))))) as number[];
      const [newer, older] = ids as [number, number];
      await page.getByLabel(`Select message ${older}`).check();
      const actions = page.getByRole('region', { name: 'Message actions' });
      await actions.getByLabel('Resend target').selectOption('Echo');
      await actions.getByRole('button', { name: `Resend message ${older}` }).click();
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(new RegExp(`Resent 1: ${older} → \\d+ \\(Echo\\)`));
      await expect.poll(() => suspended.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
      await expect.poll(() => recorded().includes('one'), { timeout: 15_000 }).toBe(true);

      await page.getByLabel(`Select message ${newer}`).check();
      await actions.getByRole('button', { name: 'Edit and resend' }).click();
      const form = page.getByRole('form', { name: 'Edit and resend' });
      await form.getByLabel('Edited message target').selectOption('Echo');
      await form.getByLabel('Message body').fill('{"StringValue": "two, corrected"}');
      await page.screenshot({ path: join(screenshots, 'message-actions.png'), fullPage: true });
      await form.getByRole('button', { name: 'Send the edited message' }).click();
      await expect.poll(() => recorded().includes('two, corrected'), { timeout: 15_000 }).toBe(true);
      await expect.poll(() => page.getByRole('table', { name: 'Suspended messages' }).count(), { timeout: 15_000 }).toBe(0);

      const links = (await server.api('GET', `/controls/messages/${newer}`)).json as { resends: Array<{ edited: boolean; user: string }> };
      expect(links.resends).toMatchObject([{ edited: true, user: 'ops' }]);
    });

    it('refuses a wrong edit with the server’s reason and keeps the form', async () => {
      writeFileSync(join(folder('bad'), 'x3.txt'), 'three');
      const suspended = page.getByRole('table', { name: 'Suspended messages' });
      await expect.poll(() => suspended.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
      const id = Number(await suspended.locator('tbody tr').first().getAttribute('data-id'));
      await page.getByLabel(`Select message ${id}`).check();
      const actions = page.getByRole('region', { name: 'Message actions' });
      await actions.getByRole('button', { name: 'Edit and resend' }).click();
      const form = page.getByRole('form', { name: 'Edit and resend' });
      await form.getByLabel('Message class').fill('msg.Python');
      await form.getByLabel('Message body').fill('[1, 2]');
      await form.getByRole('button', { name: 'Send the edited message' }).click();
      await expect.poll(() => form.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/must be a JSON object/);
      await actions.getByRole('button', { name: 'Discard' }).click();
      await page.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Yes, discard' }).click();
      await expect.poll(() => page.getByRole('table', { name: 'Suspended messages' }).count(), { timeout: 15_000 }).toBe(0);
    });

    it('shows a viewer the queues without any action', async () => {
      const viewer = await signIn('watcher', 'watcher-pw');
      await viewer.getByRole('table', { name: 'Queues' }).locator('tbody tr').first().waitFor();
      expect(await viewer.getByRole('button', { name: /Suspend queue|Resume queue/ }).count()).toBe(0);
      await viewer.close();
    });
  },
);
