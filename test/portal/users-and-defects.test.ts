/**
 * Issue 18 in a real browser (Debian Chromium through playwright-core) against a real server with the
 * orders fixture migrated: the Users page (admin only) and each portal defect as a user meets it —
 * credentials that stop working lead back to sign-in and then to the page left; an unknown class is
 * warned about; an invalid schedule is marked and not saved; schema import reads only the import
 * folder; a CSV lookup import drops its quotes and asks before it replaces a table (or merges).
 * Takes docs/screenshots/users.png with UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall } from '../support/server-process.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, migrateFixture, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

describe.skipIf(!hasChromium)(
  'users page and portal defects in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)',
  () => {
    let home: string;
    let server: PortalServer;
    let browser: Browser;
    let page: Page;
    /** A second user's browser session (dana), beside the admin's. */
    let other: BrowserContext | undefined;

    const statusAs = async (name: string, password: string) =>
      (
        await httpCall(
          { url: server.url, headers: { authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}` } },
          'GET',
          '/api/iop/status',
        )
      ).status;
    const users = async () => JSON.parse((await server.api('GET', '/users')).text) as Array<{ name: string; role: string; disabled: boolean }>;
    const userRow = (name: string) => page.getByRole('table', { name: 'Users' }).locator('tbody tr', { hasText: name });

    async function signIn(target: Page, name: string, password: string) {
      await target.getByLabel('User').fill(name);
      await target.getByLabel('Password').fill(password);
      await target.getByRole('button', { name: 'Sign in' }).click();
    }

    beforeAll(async () => {
      execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
        cwd: repoRoot,
      });
      home = await mkdtemp(join(tmpdir(), 'conveyor-portal-users-'));
      server = await startPortalServer(home);
      await migrateFixture(server);
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(15_000);
    }, 120_000);

    afterAll(async () => {
      await other?.close();
      await browser?.close();
      await server?.stop();
      if (home) await rm(home, { recursive: true, force: true });
    });

    it('lets an admin add a user, set its role, reset its password, disable and enable it', async () => {
      await page.goto(`${server.url}/portal/#/productions`);
      await signIn(page, 'admin', adminPassword);
      await page.getByRole('link', { name: 'Users' }).click();
      await userRow('admin').waitFor();
      expect(await userRow('admin').locator('td').first().textContent()).toBe('admin (you)');

      const form = page.getByRole('form', { name: 'Add user' });
      await form.getByLabel('User name').fill('dana');
      await form.getByLabel('Role').selectOption('operator');
      await form.getByLabel('Password').fill('dana-pw-1');
      await form.getByRole('button', { name: 'Add user' }).click();
      await userRow('dana').waitFor();
      expect(await users()).toContainEqual({ name: 'dana', role: 'operator', disabled: false });
      expect(await statusAs('dana', 'dana-pw-1')).toBe(200);

      await page.getByLabel('Role of dana').selectOption('viewer');
      await expect.poll(users).toContainEqual({ name: 'dana', role: 'viewer', disabled: false });

      await page.getByRole('button', { name: 'Reset password of dana' }).click();
      await page.getByRole('form', { name: 'Reset password' }).getByRole('button', { name: 'Generate' }).click();
      const generated = await page.getByRole('textbox', { name: 'New password' }).inputValue();
      expect(generated).toMatch(/^[A-Za-z0-9_-]{24}$/);
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await expect.poll(() => page.getByRole('status', { name: 'Password shown once' }).locator('code').textContent()).toBe(generated);
      expect(await statusAs('dana', 'dana-pw-1')).toBe(401);
      expect(await statusAs('dana', generated)).toBe(200);
      // Back to a password the rest of the test knows.
      await page.getByRole('button', { name: 'Reset password of dana' }).click();
      await page.getByRole('textbox', { name: 'New password' }).fill('dana-pw-2');
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await expect.poll(() => statusAs('dana', 'dana-pw-2')).toBe(200);

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Disable dana' }).click();
      await expect.poll(() => userRow('dana').locator('.badge').textContent()).toBe('disabled');
      expect(await statusAs('dana', 'dana-pw-2')).toBe(401);
      await page.screenshot({ path: join(screenshots, 'users.png') });

      // The last enabled admin stays: the server's refusal is shown where the button was pressed.
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Disable admin' }).click();
      await expect.poll(() => page.getByRole('alert').last().textContent()).toMatch(/Cannot disable admin: it is the last enabled admin/);
      expect((await users()).find((user) => user.name === 'admin')?.disabled).toBe(false);

      await page.getByRole('button', { name: 'Enable dana' }).click();
      await expect.poll(() => userRow('dana').locator('.badge').textContent()).toBe('enabled');
      expect(await statusAs('dana', 'dana-pw-2')).toBe(200);
    });

    it('shows the Users page to admins only', async () => {
      other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const dana = await other.newPage();
      dana.setDefaultTimeout(15_000);
      await dana.goto(`${server.url}/portal/#/users`);
      await signIn(dana, 'dana', 'dana-pw-2');
      await expect.poll(() => dana.getByRole('alert').textContent()).toBe('Only an admin manages users: you are signed in as dana with the role viewer.');
      expect(await dana.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).count()).toBe(0);
      expect(await dana.getByRole('table', { name: 'Users' }).count()).toBe(0);
    });

    it('returns to sign-in with the reason when the credentials stop working, and back to the page after signing in', async () => {
      const dana = other!.pages()[0]!;
      await dana.goto(`${server.url}/portal/#/production/Portal.Orders`);
      await dana.getByRole('region', { name: 'Item settings' }).waitFor();
      // The admin disables dana while its page is open: the page's next call (the items refresh, every 3 s) is refused.
      expect((await server.api('POST', '/users/dana/disable')).status).toBe(200);
      const notice = dana.getByRole('status', { name: 'Session ended' });
      await expect
        .poll(() => notice.textContent(), { timeout: 20_000 })
        .toBe(
          'Your session ended: User dana is disabled: an admin can enable it again (portal Users page). Sign in again to return to production/Portal.Orders.',
        );
      expect(await dana.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
      expect(new URL(dana.url()).hash).toBe('#/production/Portal.Orders');

      expect((await server.api('POST', '/users/dana/enable')).status).toBe(200);
      await signIn(dana, 'dana', 'dana-pw-2');
      await dana.getByRole('region', { name: 'Item settings' }).waitFor();
      expect(new URL(dana.url()).hash).toBe('#/production/Portal.Orders');
      expect(await dana.getByRole('status', { name: 'Session ended' }).count()).toBe(0);

      // A password reset ends the session the same way, with the server's reason.
      expect((await server.api('POST', '/users/dana/password', { password: 'dana-pw-3' })).status).toBe(200);
      await expect.poll(() => notice.textContent(), { timeout: 20_000 }).toMatch(/^Your session ended: Wrong user name or password\. Sign in again/);
    });

    it('warns about an item whose class is not registered, in the form and when saving', async () => {
      await page.goto(`${server.url}/portal/#/production/Portal.Orders`);
      const add = page.getByRole('form', { name: 'Add item' });
      await add.getByLabel('New item name').fill('Ghost');
      await add.getByLabel('New item class').fill('Demo.NoSuchOperation');
      await add.getByRole('button', { name: 'Add item' }).click();
      const region = page.getByRole('region', { name: 'Item settings' });
      await expect
        .poll(() => region.getByRole('alert', { name: 'Class warning' }).textContent())
        .toBe(
          'Warning: Class Demo.NoSuchOperation is not registered in namespace USER. This item cannot start until the class is registered: migrate the package that defines it, or correct the class name.',
        );
      await region.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => page.getByRole('list', { name: 'Save warnings' }).textContent())
        .toBe(
          'Warning: Item Ghost: class Demo.NoSuchOperation is not registered in namespace USER; the item cannot start until it is (migrate its package, or correct the class name)',
        );
      const stored = JSON.parse((await server.api('GET', '/definition?production=Portal.Orders')).text) as {
        items: Array<{ name: string; classname: string }>;
      };
      expect(stored.items.find((item) => item.name === 'Ghost')?.classname).toBe('Demo.NoSuchOperation');
      // A registered class carries no warning.
      await page.getByRole('button', { name: 'Item ShippingOperation' }).click();
      await region.getByLabel('Schedule').waitFor();
      expect(await region.getByRole('alert', { name: 'Class warning' }).count()).toBe(0);
    });

    it('marks an invalid schedule as it is typed and keeps Save off; a valid one is saved', async () => {
      const region = page.getByRole('region', { name: 'Item settings' });
      await region.getByLabel('Schedule').fill('every day at 8');
      await expect.poll(() => region.locator('.error-text').first().textContent()).toBe('Not an IRIS schedule: "every day at 8" must be START:… or STOP:….');
      expect(await region.getByLabel('Schedule').getAttribute('aria-invalid')).toBe('true');
      expect(await region.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      await region.getByLabel('Schedule').fill('START:*-*-*T25:00:00');
      await expect
        .poll(() => region.locator('.error-text').first().textContent())
        .toBe('Not an IRIS schedule: the time "25:00:00" must be hh:mm:ss (00:00:00 to 23:59:59).');
      const schedule = 'START:WEEK-*-01T08:00:00,STOP:WEEK-*-05T17:00:00';
      await region.getByLabel('Schedule').fill(schedule);
      expect(await region.getByLabel('Schedule').getAttribute('aria-invalid')).toBe('false');
      await region.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(
          async () =>
            (
              JSON.parse((await server.api('GET', '/definition?production=Portal.Orders')).text) as { items: Array<{ name: string; schedule: string }> }
            ).items.find((item) => item.name === 'ShippingOperation')?.schedule,
        )
        .toBe(schedule);
    });

    it("imports a schema only from the server's import folder", async () => {
      await mkdir(join(home, 'imports'), { recursive: true });
      await writeFile(join(home, 'imports', 'person.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } } }));
      await page.getByRole('link', { name: 'Schemas' }).click();
      const form = page.getByRole('form', { name: 'Import schema' });
      await form.getByLabel('Package').fill('drop');
      await form.getByLabel('Schema name').fill('drop.Leak');
      const error = form.locator('xpath=..').locator('.error-note');
      for (const path of ['../users.json', join(home, 'users.json'), '/etc/passwd']) {
        await form.getByLabel('Server path').fill(path);
        await form.getByRole('button', { name: 'Import' }).click();
        await expect
          .poll(() => error.textContent(), { message: path })
          .toMatch(/^ERROR #UNSAFE_PATH: path ".*" is outside the folders the server reads schema files from/);
        await expect.poll(() => error.textContent(), { message: path }).toContain(JSON.stringify(path).replace(home, '<home>'));
      }
      expect((await server.api('GET', '/schemas/drop.Leak')).status).toBe(404);
      await form.getByLabel('Schema name').fill('drop.Person');
      await form.getByLabel('Server path').fill('person.json');
      await form.getByRole('button', { name: 'Import' }).click();
      await expect.poll(() => page.getByRole('region', { name: 'Schema tree' }).locator('.tree-name').allTextContents()).toEqual(['id']);
    });

    it('reads a quoted CSV lookup file properly and asks before it replaces a table, offering merge', async () => {
      await page.getByRole('link', { name: 'Lookups' }).click();
      await page.getByLabel('New table name').fill('Clients');
      await page.getByRole('button', { name: 'New table' }).click();
      await page.getByLabel('Key 1').fill('ACME');
      await page.getByLabel('Value 1').fill('Acme Corporation');
      await page.getByRole('button', { name: 'Add entry' }).click();
      await page.getByLabel('Key 2').fill('GLOBEX');
      await page.getByLabel('Value 2').fill('Globex Inc.');
      await page.getByRole('button', { name: 'Save table' }).click();
      await expect
        .poll(async () => JSON.parse((await server.api('GET', '/lookups/Clients')).text).entries)
        .toEqual({ ACME: 'Acme Corporation', GLOBEX: 'Globex Inc.' });

      const csv = 'key,value\r\n"ACME","Acme, Ltd"\r\n"INITECH","Initech ""Software"""\r\n';
      const file = { name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) };
      const choice = page.getByRole('dialog', { name: 'Import choice' });
      const values = () =>
        page
          .getByRole('table', { name: 'Entries' })
          .locator('tbody input')
          .all()
          .then((inputs) => Promise.all(inputs.map((input) => input.inputValue())));

      await page.getByLabel('Import entries').setInputFiles(file);
      await expect
        .poll(() => choice.locator('p').first().textContent())
        .toBe('clients.csv has 2 entries; Clients has 2, 1 of them with a key the file also has. How should the file go into the table?');
      await choice.getByRole('button', { name: 'Cancel import' }).click();
      expect(await values()).toEqual(['ACME', 'Acme Corporation', 'GLOBEX', 'Globex Inc.']);

      await page.getByLabel('Import entries').setInputFiles(file);
      await choice.getByRole('button', { name: 'Merge into Clients' }).click();
      expect(await values()).toEqual(['ACME', 'Acme, Ltd', 'GLOBEX', 'Globex Inc.', 'INITECH', 'Initech "Software"']);
      // Nothing is stored before Save table.
      expect(JSON.parse((await server.api('GET', '/lookups/Clients')).text).entries).toEqual({ ACME: 'Acme Corporation', GLOBEX: 'Globex Inc.' });
      await page.getByRole('button', { name: 'Save table' }).click();
      await expect
        .poll(async () => JSON.parse((await server.api('GET', '/lookups/Clients')).text).entries)
        .toEqual({ ACME: 'Acme, Ltd', GLOBEX: 'Globex Inc.', INITECH: 'Initech "Software"' });

      await page.getByLabel('Import entries').setInputFiles(file);
      await choice.getByRole('button', { name: 'Replace all 3 entries' }).click();
      expect(await values()).toEqual(['ACME', 'Acme, Ltd', 'INITECH', 'Initech "Software"']);

      await page.getByLabel('Import entries').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('a,1\r\nACME, Acme, Ltd\r\n') });
      await expect
        .poll(() => page.locator('.error-note').last().textContent())
        .toBe('bad.csv: line 2 has 3 values: write key,value, and quote a value that holds a comma ("Acme, Ltd")');
      expect(await choice.count()).toBe(0);
    });
  },
);
