/**
 * The routing rule editor in a real browser (Debian Chromium through playwright-core) against a real
 * server: an operator builds a rule in the form and sees the class text follow, types the text and
 * sees the form follow, gets a condition's diagnostic with its line:column, is warned before leaving
 * with unsaved edits, saves, and tests messages to see which rule fires and why; a viewer reads the
 * rule and tests it but changes nothing; the operator deletes it. Takes docs/screenshots/rule-editor.png
 * and rule-test.png with UPDATE_SCREENSHOTS=1.
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
import { startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

describe.skipIf(!hasChromium)('the routing rule editor in a browser (skipped without Chromium: apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;

  const text = () => page.getByLabel('Rule class text').inputValue();
  const problems = () => page.getByRole('list', { name: 'Problems' }).locator('li');
  const storedRule = async () => JSON.parse((await server.api('GET', '/rules/Demo.Route')).text) as { version: number; source: string };

  async function signIn(on: Page, name: string, password: string) {
    await on.getByLabel('User').fill(name);
    await on.getByLabel('Password').fill(password);
    await on.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-rules-'));
    server = await startPortalServer(home);
    expect((await server.api('PUT', '/users/oscar', { password: 'oscar-pw', role: 'operator' })).status).toBe(200);
    expect((await server.api('PUT', '/users/vic', { password: 'vic-pw', role: 'viewer' })).status).toBe(200);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('builds a rule in the form and the class text follows', async () => {
    await page.goto(`${server.url}/portal/#/productions`);
    await signIn(page, 'oscar', 'oscar-pw');
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await page.getByRole('table', { name: 'Rules' }).getByText('No rule yet.').waitFor();
    await page.getByPlaceholder('Demo.RoutingRule').fill('Demo Route');
    expect(await page.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await page.getByPlaceholder('Demo.RoutingRule').fill('Demo.Route');
    await page.getByRole('button', { name: 'Create' }).click();

    await expect.poll(text).toMatch(/^Class Demo\.Route Extends Ens\.Rule\.Definition/);
    expect(await text()).toContain('<ruleSet name="" effectiveBegin="" effectiveEnd="">\n</ruleSet>');
    await page.getByLabel('Rule set name').fill('main');
    await page.getByRole('button', { name: '+ rule', exact: true }).click();
    const rule = page.locator('li.rule-card').first();
    await rule.getByLabel('Rule name').fill('urgent');
    await rule.getByRole('button', { name: '+ constraint' }).click();
    await rule.getByLabel('Constraint value').fill('OrderIn');
    await rule.getByLabel('Condition').fill('Document.kind="urgent"');
    await page.getByLabel('Add action to rule#1(urgent) when#1').selectOption('send');
    // A send needs a target: the field says so, and so does the text (it no longer parses).
    expect(await rule.getByLabel('Target').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => problems().first().textContent()).toContain('<send> needs a target');
    await rule.getByLabel('Target').fill('Urgent');
    await page.getByLabel('Add action to rule#1(urgent) when#1').selectOption('return');
    await expect.poll(() => problems().count()).toBe(0);
    expect(await text()).toContain(
      [
        '<ruleSet name="main" effectiveBegin="" effectiveEnd="">',
        '<rule name="urgent">',
        '<constraint name="source" value="OrderIn"></constraint>',
        '<when condition="Document.kind=&quot;urgent&quot;">',
        '<send transform="" target="Urgent"></send>',
        '<return></return>',
        '</when>',
        '</rule>',
        '</ruleSet>',
      ].join('\n'),
    );
    expect(await page.locator('.panel-head h2').first().textContent()).toContain('new · unsaved');
  });

  it('follows the class text in the form as it is typed, and locks the form while the text does not parse', async () => {
    const area = page.getByLabel('Rule class text');
    const withRest = (await text()).replace(
      '</rule>\n</ruleSet>',
      '</rule>\n<rule name="rest">\n<otherwise>\n<send transform="" target="Normal"></send>\n</otherwise>\n</rule>\n</ruleSet>',
    );
    await area.fill(withRest.replace('</otherwise>', '</otherwis'));
    await page.getByRole('status').filter({ hasText: 'The class text does not parse' }).waitFor();
    expect(await page.getByLabel('Rule set name').isDisabled()).toBe(true);
    expect(await page.locator('li.rule-card').count()).toBe(1);
    await area.fill(withRest);
    await expect.poll(() => page.locator('li.rule-card').count()).toBe(2);
    const rest = page.locator('li.rule-card').nth(1);
    expect(await rest.locator('.rule-title').textContent()).toBe('rule#2(rest)');
    expect(await rest.getByRole('group', { name: 'rule#2(rest) otherwise' }).getByLabel('Target').inputValue()).toBe('Normal');
    expect(await page.getByLabel('Rule set name').isDisabled()).toBe(false);
  });

  it('points at a bad condition with its line and column, in the list and on the field, as it is typed', async () => {
    const condition = page.locator('li.rule-card').first().getByLabel('Condition');
    await condition.fill('Document.kind=..Nope(1)');
    await expect.poll(() => problems().count()).toBe(1);
    const line = (await text()).split('\n').findIndex((l) => l.startsWith('<when condition="Document.kind=..Nope(1)"')) + 1;
    expect(await problems().first().textContent()).toBe(`${line}:32 error: unknown function ..Nope`);
    expect(await condition.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('group', { name: 'rule#1(urgent) when#1' }).locator('.diagnostic.error').textContent()).toBe(
      `${line}:32 unknown function ..Nope`,
    );
    // The server agrees.
    await page.getByRole('button', { name: 'Compile' }).click();
    await page.getByText('compiled by the server: 1 error(s), 0 warning(s)').waitFor();
    await problems()
      .first()
      .getByRole('button', { name: `${line}:32` })
      .click();
    expect(await page.locator('textarea:focus').getAttribute('aria-label')).toBe('Rule class text');
    await condition.fill('Document.kind="urgent"');
    await expect.poll(() => problems().count()).toBe(0);
    expect(await condition.getAttribute('aria-invalid')).toBe('false');
  });

  it('warns before leaving with unsaved edits, then saves', async () => {
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'All rules' }).click();
    await expect.poll(() => asked).toBe('Leave Demo.Route? Its unsaved edits will be lost.');
    expect(new URL(page.url()).hash).toBe('#/rules/edit/Demo.Route');
    expect(await page.locator('li.rule-card').count()).toBe(2);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 1.' }).waitFor();
    const stored = await storedRule();
    expect(stored.version).toBe(1);
    expect(stored.source).toBe(await text());
  });

  it('tests messages against the text being edited: which rule fired, why, and the actions', async () => {
    const tester = page.getByRole('region', { name: 'Rule decision' });
    await page.getByLabel('Message class').fill('msg.Order');
    await page.getByLabel('Source', { exact: true }).fill('OrderIn');
    await page.getByLabel('Message body').fill('{"kind": "urgent"');
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Test', exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Message body').fill('{"kind": "urgent"}');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => tester.getByTestId('fired').textContent()).toBe('rule#1(urgent)');
    // The form marks the rule and the when that fired.
    expect(await page.locator('li.rule-card.fired .rule-title').allTextContents()).toEqual(['rule#1(urgent) fired']);
    expect(await page.getByRole('group', { name: 'rule#1(urgent) when#1' }).getAttribute('class')).toContain('fired');
    await page.mouse.wheel(0, -10_000);
    await page.screenshot({ path: join(screenshots, 'rule-editor.png') });
    expect(await tester.getByRole('list', { name: 'Resulting actions' }).textContent()).toBe('send to Urgent (rule#1(urgent):when#1)');
    expect(await tester.getByRole('table', { name: 'Rule log' }).locator('tbody tr').allTextContents()).toEqual([
      `rule#1(urgent)whenwhen#1 is true: Document.kind="urgent"${(await text()).split('\n').findIndex((l) => l.startsWith('<when ')) + 1}`,
    ]);

    await page.getByLabel('Source', { exact: true }).fill('Elsewhere');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => tester.getByTestId('fired').textContent()).toBe('rule#2(rest)');
    const steps = await tester.getByRole('table', { name: 'Rule log' }).locator('tbody tr td:nth-child(3)').allTextContents();
    expect(steps).toEqual(['source is "Elsewhere", the rule wants "OrderIn"', 'no condition: otherwise']);
    expect(await page.locator('li.rule-card.fired .rule-title').allTextContents()).toEqual(['rule#2(rest) fired']);
    expect(await page.getByRole('group', { name: 'rule#2(rest) otherwise' }).getAttribute('class')).toContain('fired');
    await page.locator('section.panel', { hasText: 'Which rule fires for this message' }).screenshot({ path: join(screenshots, 'rule-test.png') });
    expect(await tester.getByRole('list', { name: 'Resulting actions' }).textContent()).toBe('send to Normal (rule#2(rest):otherwise)');

    // An edit, unsaved, is what the next test runs.
    await page.locator('li.rule-card').nth(1).getByLabel('Target').fill('Audit');
    // The marks were for the text before the edit.
    expect(await page.locator('li.rule-card.fired').count()).toBe(0);
    await page.getByLabel('Add action to rule#2(rest) otherwise').selectOption('assign');
    const assign = page.locator('li.rule-action-assign');
    expect(await assign.getByLabel('Property').getAttribute('aria-invalid')).toBe('true');
    await assign.getByLabel('Property').fill('Document.routed');
    await assign.getByLabel('Assigned value').fill('"by "_Source');
    await expect.poll(() => problems().count()).toBe(0);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => tester.getByRole('list', { name: 'Resulting actions' }).textContent()).toBe('send to Audit (rule#2(rest):otherwise)');
    expect(JSON.parse((await tester.getByLabel('Assigned message').textContent()) ?? 'null')).toEqual({ kind: 'urgent', routed: 'by Elsewhere' });
    expect((await storedRule()).source).toContain('target="Normal"');
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.getByLabel('History').selectOption('1');
    await expect.poll(() => asked).toMatch(/^Load version 1 of .* over your unsaved edits\?$/);
    expect(await text()).toContain('target="Audit"');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2.' }).waitFor();
  });

  it('shows a viewer the rule read-only; the viewer can still test it', async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await viewer.goto(`${server.url}/portal/#/rules`);
      await signIn(viewer, 'vic', 'vic-pw');
      const row = viewer.getByRole('table', { name: 'Rules' }).locator('tbody tr', { hasText: 'Demo.Route' });
      await row.waitFor();
      expect(await row.locator('td').nth(3).textContent()).toBe('2');
      expect(await viewer.getByRole('form', { name: 'New rule' }).count()).toBe(0);
      expect(await row.getByRole('button', { name: 'Delete Demo.Route' }).count()).toBe(0);
      await row.getByRole('link', { name: 'View' }).click();
      await viewer.getByText('Read-only: an operator edits and saves rules.').waitFor();
      await expect.poll(() => viewer.locator('li.rule-card').count()).toBe(2);
      expect(await viewer.getByRole('button', { name: 'Save' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: '+ rule', exact: true }).count()).toBe(0);
      expect(await viewer.locator('li.rule-card').first().getByLabel('Condition').isDisabled()).toBe(true);
      expect(await viewer.getByLabel('Rule class text').getAttribute('readonly')).toBe('');

      await viewer.getByRole('link', { name: 'All rules' }).click();
      await viewer.getByRole('table', { name: 'Rules' }).getByRole('link', { name: 'Test' }).click();
      await viewer.getByLabel('Message class').fill('msg.Order');
      await viewer.getByRole('button', { name: 'Test', exact: true }).click();
      await expect.poll(() => viewer.getByRole('region', { name: 'Rule decision' }).getByTestId('fired').textContent()).toBe('rule#2(rest)');
      await viewer.getByRole('table', { name: 'Logged decisions' }).getByText('No routing engine has used this rule yet.').waitFor();
    } finally {
      await viewer.close();
    }
  });

  it('deletes a rule once confirmed', async () => {
    await page.getByRole('link', { name: 'All rules' }).click();
    const row = page.getByRole('table', { name: 'Rules' }).locator('tbody tr', { hasText: 'Demo.Route' });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete Demo.Route' }).click();
    await page.getByRole('table', { name: 'Rules' }).getByText('No rule yet.').waitFor();
    expect((await server.api('GET', '/rules/Demo.Route')).status).toBe(404);
  });
});
