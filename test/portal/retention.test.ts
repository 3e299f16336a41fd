/**
 * The Store page in a real browser (Debian Chromium through playwright-core) against a real server
 * whose home was filled beforehand (some messages and log entries aged 40 days in the database file):
 * the figures (messages, oldest message), the retention policy form, and a purge that shows a dry run
 * first and purges only once confirmed — keeping the queued and suspended messages. A viewer sees the
 * figures and the policy, read-only, and no purge. Takes docs/screenshots/store.png with UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));
const dayMs = 86_400_000;

const message = (overrides: Partial<NewMessage> = {}): NewMessage => ({
  namespace: 'USER',
  sessionId: null,
  parentId: null,
  correspondingId: null,
  kind: 'request',
  source: 'Intake',
  target: 'Lab',
  responseRequired: false,
  status: 'completed',
  priority: 0,
  description: '',
  body: { classname: 'msg.Order', encoding: 'json', data: JSON.stringify({ order: 'x'.repeat(2000) }) },
  ...overrides,
});

describe.skipIf(!hasChromium)('the Store page in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;
  let queued: number;
  let suspended: number;

  const report = async () => JSON.parse((await server.api('GET', '/retention')).text) as { usage: { messages: number; logEntries: number }; policy: unknown };
  const figure = (name: string) => page.locator(`[data-figure="${name}"]`);

  async function signIn(name: string, password: string) {
    await page.getByLabel('User').fill(name);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-store-'));
    const path = join(home, 'conveyor.db');
    const store = await openStore({ sqlitePath: path });
    await store.messages.insert(Array.from({ length: 40 }, () => message()));
    [queued] = (await store.messages.insert([message({ status: 'queued' })])) as [number];
    [suspended] = (await store.messages.insert([message({ status: 'queued' })])) as [number];
    await store.messages.update([{ id: suspended, status: 'error', error: 'lab down' }]);
    await store.log.append('USER', [
      { type: 'Info', configName: 'Lab', job: '1', messageId: null, sessionId: null, sourceClass: 'bo.Lab', sourceMethod: 'on_message', text: 'old entry' },
    ]);
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE messages SET created_at = created_at - ?').run(40 * dayMs);
    db.prepare('UPDATE log_entries SET time_logged = time_logged - ?').run(40 * dayMs);
    db.close();
    const again = await openStore({ sqlitePath: path });
    await again.messages.insert(Array.from({ length: 8 }, () => message()));
    await again.close();
    server = await startPortalServer(home);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('shows the store, saves a policy, and purges only after a dry run and a confirmation', async () => {
    await page.goto(`${server.url}/portal/#/productions`);
    await signIn('admin', adminPassword);
    await page.getByRole('link', { name: 'Store' }).click();
    await expect.poll(() => figure('messages').textContent()).toBe('50');
    const oldest = await figure('oldest-message').textContent();
    expect(oldest?.slice(0, 10)).toBe(new Date(Date.now() - 40 * dayMs).toISOString().slice(0, 10));
    expect(await figure('log-entries').textContent()).not.toBe('0');

    const policy = page.getByRole('form', { name: 'Retention policy' });
    await policy.getByLabel('Keep messages (days)').fill('90');
    await policy.getByLabel('Keep log entries (days)').fill('30');
    await policy.getByLabel('Size cap (MB)').fill('2048');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Policy saved').waitFor();
    expect((await report()).policy).toEqual({ messageDays: 90, logDays: 30, maxStoreBytes: 2048 * 1024 * 1024 });

    const purge = page.getByRole('form', { name: 'Purge' });
    await purge.getByLabel('Days to keep').fill('30');
    await purge.getByRole('button', { name: 'Dry run' }).click();
    const dryRun = page.getByRole('status', { name: 'Dry run' });
    await dryRun.waitFor();
    expect(await dryRun.textContent()).toMatch(/40 messages \(40 bodies\) and 1 log entries would be purged/);
    // The dry run deleted nothing.
    expect((await report()).usage.messages).toBe(50);
    await page.screenshot({ path: join(screenshots, 'store.png'), fullPage: true });

    await dryRun.getByRole('button', { name: 'Purge 40 messages and 1 log entries' }).click();
    const result = page.getByRole('status', { name: 'Purge result' });
    await result.waitFor();
    expect(await result.textContent()).toMatch(/Purged 40 messages and 1 log entries/);
    await expect.poll(() => figure('messages').textContent()).toBe('10');
    expect((await report()).usage.messages).toBe(10);
    expect((await server.api('GET', `/messages/${queued}`)).status).toBe(200);
    expect((await server.api('GET', `/messages/${suspended}`)).status).toBe(200);
  });

  it('forgets the dry run when the bound changes, so what is confirmed is what was shown', async () => {
    const purge = page.getByRole('form', { name: 'Purge' });
    await purge.getByLabel('Days to keep').fill('0');
    await purge.getByRole('button', { name: 'Dry run' }).click();
    const dryRun = page.getByRole('status', { name: 'Dry run' });
    await dryRun.waitFor();
    expect(await dryRun.textContent()).toMatch(/8 messages/);
    await purge.getByLabel('Days to keep').fill('5');
    await expect.poll(() => dryRun.count()).toBe(0);
    expect((await report()).usage.messages).toBe(10);
  });

  it('shows a viewer the figures and the policy read-only, without a purge', async () => {
    expect((await server.api('PUT', '/users/vic', { password: 'vic-pw', role: 'viewer' })).status).toBe(200);
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await viewer.goto(`${server.url}/portal/#/store`);
      await viewer.getByLabel('User').fill('vic');
      await viewer.getByLabel('Password').fill('vic-pw');
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => viewer.locator('[data-figure="messages"]').textContent()).toBe('10');
      expect(await viewer.getByLabel('Keep messages (days)').isDisabled()).toBe(true);
      expect(await viewer.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
      expect(await viewer.getByRole('form', { name: 'Purge' }).count()).toBe(0);
      expect(await viewer.getByText('Only an admin changes the policy.').count()).toBe(1);
    } finally {
      await viewer.close();
    }
  });
});
