/**
 * The Productions page in a real browser (Debian Chromium through playwright-core) against a real
 * server running a production with an item that cannot start (an EnsLib.File.PassthroughService
 * without its FilePath): the production shows `Running` (the spec's status) and the page names the
 * item that did not start and why; once the item is fixed and the production updated, the note goes.
 * Takes docs/screenshots/failed-items.png with UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

describe.skipIf(!hasChromium)('items that did not start, in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;

  const definition = (filePath: string | null) => ({
    definition: {
      name: 'Demo.Files',
      items: [
        {
          name: 'FileIn',
          classname: 'EnsLib.File.PassthroughService',
          settings: [
            { target: 'Host', name: 'TargetConfigNames', value: 'FileOut' },
            ...(filePath === null ? [] : [{ target: 'Adapter', name: 'FilePath', value: filePath }]),
          ],
        },
        { name: 'FileOut', classname: 'EnsLib.File.PassthroughOperation', settings: [{ target: 'Adapter', name: 'FilePath', value: join(home, 'out') }] },
      ],
    },
  });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-enslib-'));
    server = await startPortalServer(home);
    const put = await server.api('PUT', '/definition', definition(null));
    expect(put.status, put.text).toBe(200);
    const start = await server.api('POST', '/start', { production: 'Demo.Files' });
    expect(start.status, start.text).toBe(200);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.api('POST', '/kill').catch(() => undefined);
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('names the item that did not start, and why, while the production runs', async () => {
    expect(JSON.parse((await server.api('GET', '/status')).text)).toEqual({ production: 'Demo.Files', status: 'running' });
    await page.goto(`${server.url}/`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const note = page.getByRole('alert', { name: 'Items that did not start' });
    await expect.poll(() => note.textContent()).toContain('1 item of Demo.Files did not start:');
    expect(await note.locator('[data-failed-item="FileIn"]').textContent()).toBe(
      'FileIn (EnsLib.File.PassthroughService): Item FileIn needs the setting FilePath',
    );
    expect(await note.locator('[data-failed-item="FileOut"]').count()).toBe(0);
    await expect.poll(() => page.locator('tr[data-production="Demo.Files"] .badge').textContent()).toBe('Running');
    await page.screenshot({ path: join(screenshots, 'failed-items.png') });
  });

  it('drops the note once the item runs', async () => {
    expect((await server.api('PUT', '/definition', definition(join(home, 'in')))).status).toBe(200);
    expect((await server.api('POST', '/update', {})).status).toBe(200);
    await expect.poll(() => page.getByRole('alert', { name: 'Items that did not start' }).count(), { timeout: 20_000 }).toBe(0);
  });
});
