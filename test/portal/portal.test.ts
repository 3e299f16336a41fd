/**
 * The portal in a real browser (Debian Chromium through playwright-core) against a real server with
 * a real Python production (fixtures/orders, uploaded through PUT /migrate). The tests run in order
 * on one page, as an operator's session would, and take the README screenshots.
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
import { adminPassword, migrateFixture, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// The README's screenshots are refreshed only when asked (UPDATE_SCREENSHOTS=1), so a test run
// leaves the working tree as it found it.
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

describe.skipIf(!hasChromium)('portal in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`) });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-e2e-'));
    server = await startPortalServer(home);
    await migrateFixture(server);
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

  it('refuses a wrong password where it was typed, then signs in', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong user name or password.');
    await page.getByLabel('Password').fill(adminPassword);
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Productions' }).waitFor();
    expect(await page.locator('.top-bar .user').textContent()).toBe('admin · admin');
  });

  it('starts the production from the productions page', async () => {
    const row = page.locator('tr[data-production="Portal.Orders"]');
    await row.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 30_000 }).toBe('Running');
    expect(JSON.parse((await server.api('GET', '/status')).text)).toEqual({ production: 'Portal.Orders', status: 'running' });
    await shot('productions');
  });

  it('follows the log live and filters it by item', async () => {
    await page.getByRole('link', { name: 'Event log' }).click();
    const log = page.getByRole('table', { name: 'Log entries' });
    await expect.poll(() => log.locator('tbody tr', { hasText: 'shipped order' }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await log.locator('tbody tr', { hasText: 'emitting order' }).count();
    await expect.poll(() => log.locator('tbody tr', { hasText: 'emitting order' }).count(), { timeout: 30_000 }).toBeGreaterThan(before);
    await page.getByLabel('Item filter').selectOption('ShippingOperation');
    const items = await log.locator('tbody tr td:nth-child(4)').allTextContents();
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items)).toEqual(new Set(['ShippingOperation']));
    await shot('event-log');
    await page.getByLabel('Item filter').selectOption('');
  });

  it('finds a message and opens the trace of its session', async () => {
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.locator('input[name="target"]').fill('ShippingOperation');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.getByRole('table', { name: 'Messages found' }).locator('tbody tr');
    await expect.poll(() => rows.first().locator('td:nth-child(6)').textContent()).toBe('ShippingOperation');
    await shot('messages');
    await rows.first().locator('td:nth-child(3) a').click();
    const trace = page.locator('svg.trace');
    await trace.waitFor();
    expect(await trace.locator('.trace-item').allTextContents()).toEqual(['OrderService', 'OrderRouter', 'ShippingOperation']);
    expect(await trace.locator('.trace-message.request').count()).toBe(2);
    expect(await trace.locator('.trace-message.response').count()).toBe(2);
    expect(await trace.locator('.trace-log', { hasText: 'shipped order' }).count()).toBe(1);
    await trace.locator('.trace-message.request').last().click();
    await expect.poll(() => page.getByLabel('Body').textContent()).toContain('"customer": "ACME"');
    await shot('trace');
  });

  it('edits a setting, saves it and applies it with Update', async () => {
    await page.getByRole('link', { name: 'Productions' }).click();
    await page.getByRole('link', { name: 'Portal.Orders' }).click();
    await page.getByRole('button', { name: 'Item ShippingOperation' }).click();
    const region = page.getByRole('region', { name: 'Item settings' });
    await region.getByRole('button', { name: '+ prefix' }).click();
    await region.getByLabel('Value of prefix').fill('DISPATCHED');
    await region.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'Press Update' }).waitFor();
    const stored = JSON.parse((await server.api('GET', '/export?production=Portal.Orders')).text) as { items: Array<{ name: string; settings: unknown[] }> };
    expect(stored.items.find((item) => item.name === 'ShippingOperation')!.settings).toEqual([{ target: 'Host', name: 'prefix', value: 'DISPATCHED' }]);
    await shot('configuration');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect
      .poll(
        async () =>
          (JSON.parse((await server.api('GET', '/log?top=30')).text) as Array<{ text: string }>).some((entry) => entry.text.startsWith('DISPATCHED order')),
        { timeout: 30_000 },
      )
      .toBe(true);
  });

  it('tests a component and shows the reply with its trace', async () => {
    await page.getByRole('link', { name: 'Test' }).click();
    await page.getByLabel('Target item').selectOption('ShippingOperation');
    await page.getByLabel('Message class').fill('msg.Order');
    await page.getByLabel('Body').fill('{"number": 42, "customer": "Tester"');
    await expect.poll(() => page.locator('.test-form .error-note').textContent()).toMatch(/^Not valid JSON/);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await page.getByLabel('Body').fill('{"number": 42, "customer": "Tester"}');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.getByRole('region', { name: 'Reply' });
    await expect.poll(() => reply.locator('pre').textContent(), { timeout: 30_000 }).toContain('"text": "DISPATCHED order 42 for Tester"');
    expect(await reply.locator('code').textContent()).toBe('msg.Receipt');
    await page.locator('svg.trace .trace-message.response').first().waitFor();
    await shot('test-component');
  });

  it('shows the queues of the running production', async () => {
    await page.getByRole('link', { name: 'Queues' }).click();
    const rows = page.getByRole('table', { name: 'Queues' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.locator('td:first-child').allTextContents()).toEqual(['OrderService', 'OrderRouter', 'ShippingOperation']);
    await shot('queues');
  });

  it('builds a transform by drag and drop, validates as you type, compiles, saves and tests it with the XML envelope', async () => {
    await page.getByRole('link', { name: 'DTL' }).click();
    await page.getByPlaceholder('Demo.OrderToShipment').fill('Demo.OrderToShipment');
    await page.getByLabel('Source doc type').selectOption('msg.Order');
    await page.getByLabel('Target doc type').selectOption('msg.Shipment');
    await page.getByRole('button', { name: 'Create' }).click();
    const drag = async (from: string, to: string) => {
      await page.locator(`[data-side="source"][data-path="${from}"]`).hover();
      await page.mouse.down();
      await page.locator(`[data-side="target"][data-path="${to}"]`).hover();
      await page.mouse.up();
    };
    await drag('customer', 'client');
    await drag('number', 'reference');
    await drag('lines().sku', 'skus()');
    // The keyboard way maps too: Enter on a source field, then Enter on a target field.
    await page.locator('[data-side="source"][data-path="number"]').press('Enter');
    await page.locator('[data-side="target"][data-path="client"]').press('Enter');
    await expect.poll(() => page.locator('.mapper-link').count()).toBe(4);
    await page.locator('li.action-assign').nth(3).getByRole('button', { name: 'Remove assign' }).click();
    const xml = page.getByLabel('Transform XML');
    expect(await xml.inputValue()).toContain(
      "<foreach property='source.{lines()}' key='k1' >\n  <assign value='source.{lines(k1).sku}' property='target.{skus()}' action='append' />",
    );
    expect(await page.locator('.mapper-link').count()).toBe(3);

    const reference = page.locator('li.action-assign').nth(1).getByLabel('Value');
    await reference.fill('"SO-"_source.{number');
    await expect.poll(() => page.locator('li.action-assign').nth(1).locator('.diagnostic.error').count()).toBe(1);
    expect(await reference.getAttribute('aria-invalid')).toBe('true');
    await reference.fill('"SO-"_source.{number}');
    await expect.poll(() => page.locator('.diagnostic.error').count()).toBe(0);

    await xml.fill((await xml.inputValue()).replace("action='set' />\n<assign", "action='set' />\n<trace value='\"mapped \"_source.{customer}' />\n<assign"));
    await expect.poll(() => page.locator('li.action-trace').count()).toBe(1);

    await page.getByRole('button', { name: 'Compile' }).click();
    await expect.poll(() => page.locator('.dtl-header .muted').textContent()).toContain('compiled: 0 error(s), 0 warning(s)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 1.' }).waitFor();
    await shot('dtl-editor');

    await page
      .getByLabel('Test payload')
      .fill('<test><Message><json><![CDATA[{"number": 7, "customer": "ACME", "lines": [{"sku": "A-1"}, {"sku": "B-7"}]}]]></json></Message></test>');
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('region', { name: 'Test result' });
    await expect
      .poll(async () => JSON.parse((await result.getByLabel('Target').textContent()) ?? 'null'))
      .toEqual({ client: 'ACME', reference: 'SO-7', skus: ['A-1', 'B-7'] });
    expect(await result.locator('.badge').textContent()).toBe('ok');
    expect(await result.locator('pre').nth(1).textContent()).toContain('mapped ACME');
    await result.scrollIntoViewIfNeeded();
    await shot('dtl-test');
    const stored = JSON.parse((await server.api('GET', '/transforms/Demo.OrderToShipment')).text) as { version: number; source: string };
    expect(stored.version).toBe(1);
    expect(stored.source).toContain('"SO-"_source.{number}');
  });

  it('adds an item that applies the transform in the running production', async () => {
    await page.getByRole('link', { name: 'Productions' }).click();
    await page.getByRole('link', { name: 'Portal.Orders' }).click();
    await page.getByLabel('New item name').fill('OrderToShipment');
    await page.getByLabel('New item class').fill('Conveyor.Process.Transform');
    await page.getByRole('button', { name: 'Add item' }).click();
    const region = page.getByRole('region', { name: 'Item settings' });
    for (const [index, [name, value]] of [
      ['Transform', 'Demo.OrderToShipment'],
      ['TargetConfigNames', 'ShippingOperation'],
    ].entries()) {
      await region.getByRole('button', { name: 'Add setting' }).click();
      await region.getByLabel('Setting name').nth(index).fill(name!);
      await region.getByLabel(`Value of ${name}`).fill(value!);
    }
    await region.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'Press Update' }).waitFor();
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Item OrderToShipment' }).textContent(), { timeout: 30_000 }).toContain('running');

    await page.getByRole('link', { name: 'Test' }).click();
    await page.getByLabel('Target item').selectOption('OrderToShipment');
    await page.getByLabel('Message class').fill('msg.Order');
    await page.getByLabel('Body').fill('{"number": 42, "customer": "Tester", "lines": [{"sku": "A-1"}, {"sku": "C-3"}]}');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.getByRole('region', { name: 'Reply' });
    await expect.poll(() => reply.locator('pre').textContent(), { timeout: 30_000 }).toContain('"text": "DISPATCHED shipment SO-42 for Tester: A-1, C-3"');
    await expect
      .poll(() => page.locator('svg.trace .trace-item').allTextContents())
      .toEqual(['EnsLib.Testing.Service', 'OrderToShipment', 'ShippingOperation']);
    await shot('transform-in-production');
  });

  it('imports a JSON schema by upload and browses its tree', async () => {
    await page.getByRole('link', { name: 'Schemas' }).click();
    await page.getByLabel('Package').fill('demo');
    await page.getByLabel('Schema name').fill('demo.Person');
    const schema = { type: 'object', title: 'Person', properties: { name: { type: 'string' }, emails: { type: 'array', items: { type: 'string' } } } };
    await page.getByLabel('Schema file').setInputFiles({ name: 'person.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(schema)) });
    await page.getByRole('button', { name: 'Import' }).click();
    const tree = page.getByRole('region', { name: 'Schema tree' });
    await expect.poll(() => tree.locator('.tree-name').allTextContents()).toEqual(['name', 'emails()']);
    expect(await page.getByRole('table', { name: 'Schemas' }).locator('tbody tr', { hasText: 'demo.Person' }).locator('td').nth(1).textContent()).toBe('demo');
    await page.getByLabel('Schema file').setInputFiles([]);
    await page.getByLabel('Server path').fill('/no/such/schema.json');
    await page.getByRole('button', { name: 'Import' }).click();
    await expect
      .poll(() => page.getByRole('form', { name: 'Import schema' }).locator('xpath=..').locator('.error-note').textContent())
      .toMatch(/^ERROR #UNSAFE_PATH: path "\/no\/such\/schema.json" is outside the folders the server reads schema files from/);
    await shot('schemas');
  });

  it('creates and edits a lookup table', async () => {
    await page.getByRole('link', { name: 'Lookups' }).click();
    await page.getByLabel('New table name').fill('Clients');
    await page.getByRole('button', { name: 'New table' }).click();
    await page.getByLabel('Key 1').fill('ACME');
    await page.getByLabel('Value 1').fill('Acme Corporation');
    await page.getByRole('button', { name: 'Add entry' }).click();
    await page.getByLabel('Key 2').fill('ACME');
    await expect.poll(() => page.locator('.error-note').allTextContents()).toEqual(['The key "ACME" appears twice; keys must be unique.']);
    await page.getByLabel('Key 2').fill('GLOBEX');
    await page.getByLabel('Value 2').fill('Globex Inc.');
    await page.getByRole('button', { name: 'Save table' }).click();
    await expect
      .poll(async () => JSON.parse((await server.api('GET', '/lookups/Clients')).text))
      .toEqual({ table: 'Clients', entries: { ACME: 'Acme Corporation', GLOBEX: 'Globex Inc.' } });
    await page.getByRole('list', { name: 'Tables' }).getByRole('button', { name: 'Clients' }).waitFor();
    await shot('lookups');
  });

  it('shows a viewer no button that changes anything', async () => {
    expect((await server.api('PUT', '/users/watcher', { password: 'watch-pw', role: 'viewer' })).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const viewer = await context.newPage();
    viewer.setDefaultTimeout(15_000);
    await viewer.goto(`${server.url}/portal/`);
    await viewer.getByLabel('User').fill('watcher');
    await viewer.getByLabel('Password').fill('watch-pw');
    await viewer.getByRole('button', { name: 'Sign in' }).click();
    const row = viewer.locator('tr[data-production="Portal.Orders"]');
    await row.waitFor();
    expect(await viewer.locator('.top-bar .user').textContent()).toBe('watcher · viewer');
    for (const name of ['Stop', 'Restart', 'Update', 'Kill', 'Make default']) expect(await viewer.getByRole('button', { name }).count()).toBe(0);
    await row.getByRole('link', { name: 'Configure' }).click();
    await viewer.getByRole('button', { name: 'Item ShippingOperation' }).click();
    const region = viewer.getByRole('region', { name: 'Item settings' });
    expect(await region.getByRole('button', { name: 'Stop item' }).count()).toBe(0);
    expect(await region.getByLabel('Value of prefix').isDisabled()).toBe(true);
    expect(await viewer.getByLabel('New item name').count()).toBe(0);
    await viewer.getByRole('link', { name: 'Test' }).click();
    expect(await viewer.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await context.close();
  });

  it('stops the production', async () => {
    await page.getByRole('link', { name: 'Productions' }).click();
    await page.getByRole('button', { name: 'Stop' }).click();
    const row = page.locator('tr[data-production="Portal.Orders"]');
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 30_000 }).toBe('Stopped');
  });
});
