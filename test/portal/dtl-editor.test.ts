/**
 * The DTL editor's settings, diagnostics and unsaved edits in a real browser (Debian Chromium
 * through playwright-core) against a real server: a parameter and the language set as controls
 * rewrite the text (and the text sets the controls); a diagnostic — as you type, then from Compile —
 * selects its action in the graph and puts the caret at its line and column; leaving with unsaved
 * edits asks first (a portal link, reloading the tab, loading an old version over them) and leaving
 * after Save does not.
 * Takes docs/screenshots/dtl-diagnostics.png with UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caretOffset } from '../../web/src/components/text-position.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));
const editor = '#/dtl/edit/Demo.Params?source=msg.In&target=msg.Out';

/** The actions the diagnostics are about: a good assign, a foreach whose assign lacks a brace, a subtransform nobody saved. */
const actions = [
  "<assign value='source.{number}' property='target.{reference}' action='set' />",
  "<foreach property='source.{lines()}' key='k1' >",
  "  <assign value='source.{lines(k1).sku' property='target.{skus()}' action='append' />",
  '</foreach>',
  "<subtransform class='Demo.Missing' sourceObj='source' targetObj='target' />",
].join('\n');

const docTypes = {
  'msg.In': { number: { type: 'integer' }, lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } },
  'msg.Out': { reference: { type: 'string' }, skus: { type: 'array', items: { type: 'string' } } },
};

describe.skipIf(!hasChromium)('DTL editor settings, diagnostics and unsaved edits in a browser (skipped without Chromium)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;
  /** Every dialog the page opened (`type: message`), answered with `answer`. */
  const dialogs: string[] = [];
  let answer: 'accept' | 'dismiss' = 'dismiss';

  const text = () => page.getByLabel('Transform XML');
  /** expect.poll with the patience of the page's other waits (the machine may be busy). */
  const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 });
  const parameter = (name: string) => page.getByRole('group', { name: 'Parameters' }).getByRole('checkbox', { name });
  /** The caret of the text and whether the text has the focus. */
  const caret = () =>
    text().evaluate((area: { selectionStart: number; ownerDocument: { activeElement: unknown } }) => ({
      at: area.selectionStart,
      focused: area.ownerDocument.activeElement === area,
    }));
  /** Clicks the diagnostic that leads to `where` and answers the line and column it names. */
  async function pick(where: RegExp): Promise<{ line: number; column: number }> {
    const button = page.getByRole('region', { name: 'Diagnostics' }).getByRole('button', { name: where });
    const [, line, column] = /^Go to (\d+):(\d+)/.exec((await button.getAttribute('aria-label')) ?? '')!;
    await button.click();
    return { line: Number(line), column: Number(column) };
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-dtl-'));
    server = await startPortalServer(home);
    // The doc types of the transform, so that Compile checks its paths (and the trees show fields).
    for (const [name, properties] of Object.entries(docTypes)) {
      const reply = await server.api('POST', '/schemas/import', { package: 'msg', name, schema: { type: 'object', properties } });
      if (reply.status !== 200) throw new Error(`schema import failed: ${reply.text}`);
    }
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('sets parameters and the language with controls that rewrite the text, and follows the text back', async () => {
    await page.goto(`${server.url}/portal/${editor}`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => text().inputValue()).toMatch(/^<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='msg.In'/);
    // A bare <transform> has the parameters IRIS's editor gives a new class.
    for (const [name, checked] of [
      ['IGNOREMISSINGSOURCE', true],
      ['REPORTERRORS', true],
      ['TREATEMPTYREPEATINGFIELDASNULL', false],
      ['GENERATEEMPTYSEGMENTS', false],
    ] as const)
      expect(await parameter(name).isChecked()).toBe(checked);

    await parameter('REPORTERRORS').uncheck();
    await poll(() => text().inputValue()).toMatch(/^Class Demo\.Params Extends Ens\.DataTransformDTL\n/);
    expect(await text().inputValue()).toContain('Parameter IGNOREMISSINGSOURCE = 1;\n\nParameter REPORTERRORS = 0;');
    expect(await page.locator('.dtl-xml label').first().textContent()).toMatch(/^Class text/);

    await page.getByLabel('Language').selectOption('python');
    await poll(() => text().inputValue()).toContain("create='new' language='python' >");
    await page.getByLabel('Python imports').fill('import math');
    await poll(() => text().inputValue()).toContain('<pyFromImport>import math</pyFromImport>');
    await page.getByLabel('Python imports').fill('');
    await page.getByLabel('Language').selectOption('objectscript');
    await poll(() => text().inputValue()).toContain("language='objectscript' >\n</transform>");
    expect(await page.getByLabel('Python imports').count()).toBe(0);

    await text().fill((await text().inputValue()).replace('Parameter GENERATEEMPTYSEGMENTS = 0;', 'Parameter GENERATEEMPTYSEGMENTS = 1;'));
    await poll(() => parameter('GENERATEEMPTYSEGMENTS').isChecked()).toBe(true);
  });

  it('leads a diagnostic to its action in the graph and to its line and column in the text', async () => {
    await text().fill((await text().inputValue()).replace('</transform>', `${actions}\n</transform>`));
    await poll(() => page.locator('li.action').count()).toBe(4);
    expect(await page.getByRole('region', { name: 'Diagnostics' }).locator('h3').textContent()).toMatch(/1 error, \d+ warnings? · as you type/);

    const brace = await pick(/\(assign 1\.actions\.0\)$/);
    const inner = page.locator('li[data-action="1.actions.0"]');
    await poll(() => inner.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('li.action.selected').count()).toBe(1);
    expect(await caret()).toEqual({ at: caretOffset(await text().inputValue(), brace.line, brace.column), focused: true });
    expect((await text().inputValue()).split('\n')[brace.line - 1]).toContain("<assign value='source.{lines(k1).sku'");

    // Fixed in the graph; Compile adds what only the server knows: the subtransform was never saved.
    await inner.getByLabel('Value').fill('source.{lines(k1).sku}');
    await poll(() => page.locator('.dtl-diagnostics .diagnostic.error').count()).toBe(0);
    await page.getByRole('button', { name: 'Compile' }).click();
    await poll(() => page.getByRole('region', { name: 'Diagnostics' }).locator('h3').textContent()).toMatch(/0 errors, \d+ warnings? · from Compile/);
    const missing = await pick(/\(subtransform 2\)$/);
    await poll(() => page.locator('li[data-action="2"]').getAttribute('aria-current')).toBe('true');
    expect(await inner.getAttribute('aria-current')).toBeNull();
    expect(await caret()).toEqual({ at: caretOffset(await text().inputValue(), missing.line, missing.column), focused: true });
    expect((await text().inputValue()).split('\n')[missing.line - 1]).toContain("<subtransform class='Demo.Missing'");
    expect(await page.locator('li[data-action="2"] .diagnostic.warning').textContent()).toContain('subtransform Demo.Missing does not exist in namespace USER');
    await page.screenshot({ path: join(screenshots, 'dtl-diagnostics.png') });

    // Selecting an action in the graph puts the caret on its line too.
    await page.locator('li[data-action="0"]').getByRole('button', { name: 'assign', exact: true }).click();
    const value = await text().inputValue();
    expect((await caret()).at).toBe(caretOffset(value, value.split('\n').indexOf(actions.split('\n')[0]!) + 1, 1));
  });

  it('asks before unsaved edits are left (a link, a reload, signing out, an old version) and not once they are saved', async () => {
    const edited = await text().inputValue();
    await page.getByRole('link', { name: 'All transforms' }).click();
    await poll(() => dialogs).toEqual(['confirm: Leave the transform Demo.Params? Its unsaved edits will be lost.']);
    expect(new URL(page.url()).hash).toBe(editor);
    expect(await text().inputValue()).toBe(edited);

    // Refused, the reload never happens (Playwright gives up waiting for it).
    await page.reload({ timeout: 3_000 }).catch(() => undefined);
    await poll(() => dialogs.length).toBe(2);
    expect(dialogs[1]).toMatch(/^beforeunload: /);
    expect(await text().inputValue()).toBe(edited);

    // Signing out (as switching the namespace) replaces the page without a hash change: asked too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await poll(() => dialogs).toHaveLength(3);
    expect(dialogs[2]).toBe('confirm: Leave the transform Demo.Params? Its unsaved edits will be lost.');
    expect(await text().inputValue()).toBe(edited);

    answer = 'accept';
    await page.getByRole('link', { name: 'All transforms' }).click();
    await page.getByRole('table', { name: 'Transforms' }).waitFor();
    expect(dialogs).toHaveLength(4);
    expect(JSON.parse((await server.api('GET', '/transforms')).text)).toEqual({ transforms: [] });

    // Opened again: nothing edited, nothing asked; edited and saved: nothing asked either.
    await page.goto(`${server.url}/portal/${editor}`);
    await poll(() => text().inputValue()).toMatch(/^<transform /);
    await page.getByRole('link', { name: 'All transforms' }).click();
    await page.getByRole('table', { name: 'Transforms' }).waitFor();
    await page.goto(`${server.url}/portal/${editor}`);
    await parameter('IGNOREMISSINGSOURCE').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 1.' }).waitFor();
    const saved = await text().inputValue();

    // An old version loaded over unsaved edits asks first too.
    answer = 'dismiss';
    await parameter('REPORTERRORS').uncheck();
    await page.getByLabel('History').selectOption('1');
    await poll(() => dialogs).toHaveLength(5);
    expect(dialogs[4]).toBe('confirm: Load version 1 of Demo.Params over your unsaved edits?');
    expect(await text().inputValue()).toContain('Parameter REPORTERRORS = 0;');
    answer = 'accept';
    await page.getByLabel('History').selectOption('1');
    await poll(() => text().inputValue()).toBe(saved);
    expect(dialogs).toHaveLength(6);

    await page.getByRole('link', { name: 'All transforms' }).click();
    await page.getByRole('table', { name: 'Transforms' }).locator('tbody tr', { hasText: 'Demo.Params' }).waitFor();
    expect(dialogs).toHaveLength(6);
    const stored = JSON.parse((await server.api('GET', '/transforms/Demo.Params')).text) as { source: string };
    expect(stored.source).toContain('Parameter IGNOREMISSINGSOURCE = 0;');
  });
});
