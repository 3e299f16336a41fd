/**
 * The portal's change plan in a real browser (Debian Chromium through playwright-core) against a real
 * server with the orders fixture: an edit is reviewed as a plan (operations, risk, validation) before
 * it is applied; a destructive plan needs its box ticked; the last apply can be rolled back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, migrateFixture, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe.skipIf(!hasChromium)('portal change plan in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;

  async function stored(): Promise<Array<{ name: string; settings: Array<{ name: string; value: string }> }>> {
    return (JSON.parse((await server.api('GET', '/export?production=Portal.Orders')).text) as { items: never }).items;
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-plan-'));
    server = await startPortalServer(home);
    await migrateFixture(server);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/#/production/Portal.Orders`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('shows the plan of an edit before applying it, then applies it', async () => {
    await page.getByRole('button', { name: 'Item ShippingOperation' }).click();
    const region = page.getByRole('region', { name: 'Item settings' });
    await region.getByRole('button', { name: '+ prefix' }).click();
    await region.getByLabel('Value of prefix').fill('PLANNED');
    const plan = page.getByRole('region', { name: 'Change plan' });
    await plan.getByRole('button', { name: 'Review plan' }).click();
    const operations = plan.getByRole('table', { name: 'Plan operations' });
    await operations.waitFor();
    expect(await operations.locator('tbody tr').allInnerTexts()).toEqual(['set_setting\titems.ShippingOperation.settings.Host.prefix\t\tPLANNED\tsafe']);
    // Reviewing wrote nothing.
    expect((await stored()).find((item) => item.name === 'ShippingOperation')?.settings).toEqual([]);
    await plan.getByRole('button', { name: 'Apply plan' }).click();
    await plan.getByRole('status').filter({ hasText: 'Applied plan' }).waitFor();
    expect((await stored()).find((item) => item.name === 'ShippingOperation')?.settings).toEqual([{ target: 'Host', name: 'prefix', value: 'PLANNED' }]);
  });

  it('asks before a destructive plan, and rolls the last apply back', async () => {
    await page.getByRole('button', { name: 'Item OrderRouter' }).click();
    await page.getByRole('region', { name: 'Item settings' }).getByRole('button', { name: 'Remove item' }).click();
    const plan = page.getByRole('region', { name: 'Change plan' });
    await page.getByRole('button', { name: 'Item OrderService' }).click();
    await plan.getByRole('button', { name: 'Review plan' }).click();
    const row = plan.getByRole('table', { name: 'Plan operations' }).locator('tbody tr.destructive');
    await row.first().waitFor();
    expect(await row.allInnerTexts()).toEqual([expect.stringMatching(/^delete_item\titems\.OrderRouter\t.*\tdestructive$/)]);
    const apply = plan.getByRole('button', { name: 'Apply plan' });
    expect(await apply.isDisabled()).toBe(true);
    await plan.getByLabel('Allow the destructive operations').check();
    await apply.click();
    await plan.getByRole('status').filter({ hasText: 'Applied plan' }).waitFor();
    expect((await stored()).map((item) => item.name)).toEqual(['OrderService', 'ShippingOperation']);

    await plan.getByRole('button', { name: 'Roll back last apply' }).click();
    await plan.getByRole('status').filter({ hasText: 'Applied plan' }).waitFor();
    await expect.poll(async () => (await stored()).map((item) => item.name)).toEqual(['OrderService', 'OrderRouter', 'ShippingOperation']);
  });

  it("checks a value against the datatype a class declares with IoP 4's setting()", async () => {
    const typed = `from iop import BusinessOperation, Category, setting

class Batcher(BusinessOperation):
    BatchSize = setting(10, category=Category.BASIC, description='Messages per batch', required=True)

CLASSES = {'Typed.Batcher': Batcher}
PRODUCTIONS = [{'Typed.Production': {'@Name': 'Typed.Production', 'Item': [{'@Name': 'Batcher', '@ClassName': 'Typed.Batcher'}]}}]
`;
    expect((await server.api('PUT', '/migrate', { package: 'typed', body: [{ name: 'settings.py', data: typed }] })).status).toBe(200);
    await page.goto(`${server.url}/#/production/Typed.Production`);
    await page.getByRole('button', { name: 'Item Batcher' }).click();
    const region = page.getByRole('region', { name: 'Item settings' });
    const add = region.getByRole('button', { name: '+ BatchSize' });
    expect(await add.getAttribute('title')).toBe('Basic: Messages per batch');
    await add.click();
    const value = region.getByLabel('Value of BatchSize');
    expect(await value.inputValue()).toBe('10');
    await value.fill('ten');
    expect(await value.getAttribute('aria-invalid')).toBe('true');
    expect(await region.locator('.error-text', { hasText: 'a whole number' }).count()).toBe(1);
    expect(await region.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await value.fill('');
    expect(await region.locator('.error-text', { hasText: 'required' }).count()).toBe(1);
    await value.fill('25');
    expect(await value.getAttribute('aria-invalid')).toBe('false');
    await region.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => JSON.parse((await server.api('GET', '/export?production=Typed.Production')).text).items[0].settings)
      .toEqual([{ target: 'Host', name: 'BatchSize', value: '25' }]);
  });
});
