/**
 * The monitor and alerts pages in a real browser (Debian Chromium through playwright-core) against a
 * real server running the monitor fixture (a failing Python operation with AlertOnError, a Python
 * Ens.Alert, an item with an InactivityTimeout): the diagram's arrows come from the target settings
 * before any traffic and fit 1280 px; the dashboard shows the health and the figures and updates
 * live; alerts are listed and acknowledged; a request a job holds counts as in progress on the Queues
 * page and the monitor. Screenshots: docs/screenshots/monitor.png and alerts.png
 * (written only when UPDATE_SCREENSHOTS=1).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../api/fixtures/monitor', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));
const production = 'Monitor.Production';

describe.skipIf(!hasChromium)('portal monitor and alerts in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;

  const failJob = async () => {
    const reply = await server.api('POST', '/test', { target: 'Worker', classname: 'jobs.Job', body: { fail: true } });
    expect(reply.status).toBe(500);
  };

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-monitor-'));
    server = await startPortalServer(home);
    const files = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
    const body = await Promise.all(
      files.map(async (entry) => ({
        name: relative(fixture, join(entry.parentPath, entry.name)),
        data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
      })),
    );
    const migrated = await server.api('PUT', '/migrate', { package: 'monitorpkg', body });
    expect(migrated.status, migrated.text).toBe(200);
    expect((await server.api('PUT', '/default', { production })).status).toBe(200);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/#/production/${production}`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('draws the arrows of the target settings before any traffic, and fits the diagram into 1280 px', async () => {
    const diagram = page.getByRole('group', { name: 'Production diagram' });
    await diagram.getByRole('button', { name: 'Item Router' }).waitFor();
    // Router's TargetConfigNames is Worker: one arrow, though nothing has run yet.
    expect(await diagram.locator('path.diagram-edge').count()).toBe(1);
    const fit = await page.locator('.diagram-scroll').evaluate((element) => {
      const svg = element.querySelector('svg')!.getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return {
        overflow: element.scrollWidth - element.clientWidth,
        svgRight: svg.right,
        boxRight: box.right,
        viewport: element.ownerDocument.documentElement.clientWidth,
      };
    });
    expect(fit.overflow).toBe(0);
    expect(fit.svgRight).toBeLessThanOrEqual(fit.boxRight);
    expect(fit.boxRight).toBeLessThanOrEqual(fit.viewport);
  });

  it('shows the health, the diagram coloured by health and the figures, updating live', async () => {
    expect((await server.api('POST', '/start', { production })).status).toBe(200);
    expect((await server.api('POST', '/test', { target: 'Router', classname: 'jobs.Job', body: { fail: false } })).status).toBe(200);
    await failJob();
    await page.getByRole('link', { name: 'Monitor', exact: true }).click();
    const banner = page.getByRole('status', { name: 'Production health' });
    await banner.filter({ hasText: 'degraded' }).waitFor();
    expect(await banner.innerText()).toContain('Worker failed 1 message in the last minute');
    const worker = page.locator('table[aria-label="Monitor"] tr[data-item="Worker"]');
    await worker.locator('td.messages-in-error', { hasText: /^1$/ }).waitFor();
    expect(await worker.locator('td.messages-in').innerText()).toBe('2');
    expect(await worker.locator('td.status').innerText()).toBe('running');
    const diagram = page.getByRole('group', { name: 'Production diagram' });
    await diagram.locator('g[data-health="degraded"][aria-label="Item Worker"]').waitFor();
    await diagram.locator('g[data-health="degraded"][aria-label="Item Idle"]').waitFor(); // silent past its InactivityTimeout of 1 s
    expect(await diagram.locator('g[aria-label="Item Router"]').getAttribute('data-health')).toBe('ok');
    expect(await page.locator('table[aria-label="Monitor"] tr[data-item="Idle"] td.status').innerText()).toBe('inactive');
    // Live: a new failure shows without reloading the page.
    await failJob();
    await worker.locator('td.messages-in-error', { hasText: /^2$/ }).waitFor();
    await page.screenshot({ path: join(screenshots, 'monitor.png') });
  });

  it('lists the alerts and acknowledges them', async () => {
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    const table = page.getByRole('table', { name: 'Alerts' });
    const failure = table.locator('tr.alert-open', { hasText: 'Item Worker failed on message' });
    await failure.waitFor();
    expect(await failure.locator('td.alert-count').innerText()).toBe('2');
    await table.locator('tr.alert-open', { hasText: 'Item Idle has been inactive' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'alerts.png') });
    const id = await failure.getAttribute('data-alert');
    await page.getByRole('button', { name: `Acknowledge alert ${id}` }).click();
    await table.locator(`tr[data-alert="${id}"]`).waitFor({ state: 'detached' });
    await page.getByLabel('Alerts to show').selectOption('acknowledged');
    const acknowledged = table.locator(`tr.alert-acknowledged[data-alert="${id}"]`);
    await acknowledged.waitFor();
    expect(await acknowledged.locator('td.alert-ack').innerText()).toMatch(/^by admin at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const stored = JSON.parse((await server.api('GET', '/alerts?state=acknowledged')).text) as { alerts: Array<{ id: number; acknowledged_by: string }> };
    expect(stored.alerts.map((alert) => [alert.id, alert.acknowledged_by])).toEqual([[Number(id), 'admin']]);
  });

  it('counts a request a job holds as in progress, on the Queues page and on the monitor', async () => {
    const release = join(home, 'release-the-job');
    const held = server.api('POST', '/test', { target: 'Worker', classname: 'jobs.Job', body: { release }, restart: false });
    await page.getByRole('link', { name: 'Queues', exact: true }).click();
    const queue = page.locator('table[aria-label="Queues"] tr[data-item="Worker"]');
    await queue.locator('td.in-progress', { hasText: /^1$/ }).waitFor();
    expect(await queue.locator('td.queued').innerText()).toBe('0');
    await page.getByRole('link', { name: 'Monitor', exact: true }).click();
    await page.locator('table[aria-label="Monitor"] tr[data-item="Worker"] td.in-progress', { hasText: /^1$/ }).waitFor();
    writeFileSync(release, '');
    expect((await held).status).toBe(200);
    await page.getByRole('link', { name: 'Queues', exact: true }).click();
    await queue.locator('td.in-progress', { hasText: /^0$/ }).waitFor();
  });
});
