/**
 * The Messages page (search by header fields and body condition, class column, body preview, cursor
 * paging, CSV / NDJSON export), the event log filtered on the server, and the trace in time order, in a
 * real browser against a real `conveyor serve` whose SQLite home was filled beforehand through the store.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewLogEntry } from '../../src/core/log.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { adminPassword, startPortalServer, type PortalServer } from './support/portal-server.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1' ? join(repoRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'conveyor-screenshots-'));

const message = (overrides: Partial<NewMessage>): NewMessage => ({
  namespace: 'USER',
  sessionId: null,
  parentId: null,
  correspondingId: null,
  kind: 'request',
  source: 'HL7In',
  target: 'Router',
  responseRequired: false,
  status: 'completed',
  priority: 0,
  description: '',
  body: { classname: 'msg.Admission', encoding: 'json', data: '{}' },
  ...overrides,
});
const logEntry = (overrides: Partial<NewLogEntry>): NewLogEntry => ({
  type: 'Info',
  configName: 'Router',
  job: '1',
  messageId: null,
  sessionId: null,
  sourceClass: 'bp.Router',
  sourceMethod: 'on_request',
  text: 'routed',
  ...overrides,
});

/** What the home holds: 120 admissions (patient ids 0..119, one urgent), a failed one, a session to trace, 600 log entries. */
interface Filled {
  admissions: number[];
  failed: number;
  session: number;
}

async function fill(home: string): Promise<Filled> {
  const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
  // A rare log entry first, then 600 ordinary ones: it is not among the newest 500 a page would hold.
  await store.log.append('USER', [logEntry({ type: 'Error', configName: 'LabOperation', text: 'lab link down since 03:00' })]);
  await store.log.append(
    'USER',
    Array.from({ length: 600 }, (_, i) => logEntry({ text: `routed admission ${i}` })),
  );
  const admissions = await store.messages.insert(
    Array.from({ length: 120 }, (_, i) =>
      message({
        source: i % 3 === 0 ? 'LabIn' : 'HL7In',
        body: {
          classname: i % 3 === 0 ? 'msg.LabResult' : 'msg.Admission',
          encoding: 'json',
          data: JSON.stringify({ patient: { id: i, name: `Patient ${i}` }, ward: i === 42 ? 'urgent care' : 'general' }),
        },
      }),
    ),
  );
  const [failed] = await store.messages.insert([
    message({ target: 'LabOperation', status: 'error', body: { classname: 'msg.LabResult', encoding: 'json', data: '{"patient":{"id":7}}' } }),
  ]);
  await store.messages.update([{ id: failed!, error: 'ConnectionRefusedError: lab link down' }]);
  // A session whose first log entry comes before its first message, in the same second. SQLite hands
  // out the next id, so the session (the first message's id) is known before the message is written.
  await store.log.append('USER', [logEntry({ configName: 'HL7In', text: 'received batch', sessionId: failed! + 1 })]);
  await sleep(5);
  const [first] = await store.messages.insert([
    message({ source: 'HL7In', target: 'Router', body: { classname: 'msg.Admission', encoding: 'json', data: '{"step":1}' } }),
  ]);
  if (first !== failed! + 1) throw new Error(`expected the session to be ${failed! + 1}, got ${first}`);
  await sleep(5);
  await store.log.append('USER', [logEntry({ configName: 'Router', text: 'routing admission', sessionId: first!, messageId: first! })]);
  await sleep(5);
  const [second] = await store.messages.insert([
    message({
      sessionId: first!,
      parentId: first!,
      source: 'Router',
      target: 'Ward',
      body: { classname: 'msg.Admission', encoding: 'json', data: '{"step":2}' },
    }),
  ]);
  await sleep(5);
  await store.log.append('USER', [logEntry({ configName: 'Ward', text: 'bed assigned', sessionId: first!, messageId: second! })]);
  await sleep(5);
  await store.messages.insert([
    message({
      sessionId: first!,
      parentId: first!,
      correspondingId: second!,
      kind: 'response',
      source: 'Ward',
      target: 'Router',
      body: { classname: 'msg.Bed', encoding: 'json', data: '{"bed":12}' },
    }),
  ]);
  await store.close();
  return { admissions, failed: failed!, session: first! };
}

describe.skipIf(!hasChromium)('message search, event log and trace in a browser (skipped without Chromium: set CHROMIUM_PATH)', () => {
  let home: string;
  let server: PortalServer;
  let browser: Browser;
  let page: Page;
  let filled: Filled;
  const rows = () => page.getByRole('table', { name: 'Messages found' }).locator('tbody tr');
  // Trimmed: an operator's id cell holds a selection box and a space before the id.
  const column = async (n: number) => (await rows().locator(`td:nth-child(${n})`).allTextContents()).map((text) => text.trim());

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: repoRoot,
    });
    home = await mkdtemp(join(tmpdir(), 'conveyor-portal-search-'));
    filled = await fill(home);
    server = await startPortalServer(home);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Productions' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lists messages with their class and the start of their body', async () => {
    await page.getByRole('link', { name: 'Messages' }).click();
    await expect.poll(() => rows().count()).toBe(50);
    const headers = await page.getByRole('table', { name: 'Messages found' }).locator('thead th').allTextContents();
    expect(headers).toEqual(['Id', 'Created (UTC)', 'Session', 'Kind', 'Source', 'Target', 'Class', 'Status', 'Error', 'Body']);
    const failedRow = rows().filter({ has: page.locator('td:first-child a', { hasText: new RegExp(`^${filled.failed}$`) }) });
    expect(await failedRow.locator('td:nth-child(7)').textContent()).toBe('msg.LabResult');
    expect(await failedRow.locator('td:nth-child(9)').textContent()).toBe('ConnectionRefusedError: lab link down');
    expect(await failedRow.locator('td:nth-child(10)').textContent()).toBe('{"patient":{"id":7}}');
  });

  it('finds by a body condition combined with header fields, and shows a malformed condition as an error', async () => {
    await page.locator('input[name="body"]').fill('$.patient.id = 42');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(1)).toEqual([String(filled.admissions[42])]);
    expect(await column(10)).toEqual([JSON.stringify({ patient: { id: 42, name: 'Patient 42' }, ward: 'urgent care' })]);
    await page.locator('input[name="body"]').fill('$.ward contains "urgent"');
    await page.locator('input[name="source"]').fill('HL7In');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows().first().textContent()).toBe('No message matches.');
    await page.locator('input[name="source"]').fill('LabIn');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(1)).toEqual([String(filled.admissions[42])]);
    await page.locator('input[name="source"]').fill('');
    await page.locator('input[name="body"]').fill('$.patient.id == 42');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('expected a JSON value');
    await page.locator('input[name="body"]').fill('$.patient.id = 42');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(1)).toEqual([String(filled.admissions[42])]);
    await page.screenshot({ path: join(screenshots, 'message-search.png') });
  });

  it('filters by status (suspended included) and error text', async () => {
    await page.locator('input[name="body"]').fill('');
    await page.locator('select[name="status"]').selectOption('suspended');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(1)).toEqual([String(filled.failed)]);
    await page.locator('select[name="status"]').selectOption('');
    await page.locator('input[name="error"]').fill('lab link');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(1)).toEqual([String(filled.failed)]);
    // A ticked row gets the message actions (O3's component); unticking removes them.
    expect(await page.getByRole('region', { name: 'Message actions' }).count()).toBe(0);
    await page.getByLabel(`Select message ${filled.failed}`).check();
    await page
      .getByRole('region', { name: 'Message actions' })
      .getByRole('button', { name: /Discard/ })
      .waitFor();
    expect(page.url()).not.toContain(`messages/${filled.failed}`);
    await page.getByLabel(`Select message ${filled.failed}`).uncheck();
    await expect.poll(() => page.getByRole('region', { name: 'Message actions' }).count()).toBe(0);
    await page.locator('input[name="error"]').fill('');
  });

  it('pages with the cursor: older, then newer again', async () => {
    await page.locator('input[name="classname"]').fill('msg.Admission');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows().count()).toBe(50);
    const firstPage = await column(1);
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(async () => (await column(1))[0]).not.toBe(firstPage[0]);
    const secondPage = await column(1);
    expect(Math.max(...secondPage.map(Number))).toBeLessThan(Math.min(...firstPage.map(Number)));
    expect(await page.locator('.pager span').textContent()).toBe('Page 2');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => column(1)).toEqual(firstPage);
  });

  it('exports the result as CSV and NDJSON files', async () => {
    await page.locator('input[name="classname"]').fill('msg.LabResult');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows().count()).toBe(41);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(csv.suggestedFilename()).toMatch(/^messages-\d{8}T\d{6}\.csv$/);
    const lines = readFileSync((await csv.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toMatch(/^id,created_at,session_id,/);
    expect(lines).toHaveLength(1 + 41);
    expect(lines[1]).toContain(',msg.LabResult,json,ConnectionRefusedError: lab link down,');
    const [ndjson] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export NDJSON' }).click()]);
    const objects = readFileSync((await ndjson.path())!, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; classname: string });
    expect(objects).toHaveLength(41);
    expect(new Set(objects.map((object) => object.classname))).toEqual(new Set(['msg.LabResult']));
    expect(objects[0]!.id).toBe(filled.failed);
  });

  it('filters the event log on the server: an entry older than any loaded page is found', async () => {
    await page.getByRole('link', { name: 'Event log' }).click();
    const log = page.getByRole('table', { name: 'Log entries' });
    await expect.poll(() => log.locator('tbody tr').count()).toBe(100);
    await page.getByLabel('Type filter').selectOption('Error');
    await expect.poll(() => log.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual(['lab link down since 03:00']);
    await page.getByLabel('Type filter').selectOption('');
    await page.getByLabel('Text filter').fill('admission 59');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(11);
    expect(new Set((await log.locator('tbody tr td:nth-child(5)').allTextContents()).map((text) => text.startsWith('routed admission 59')))).toEqual(
      new Set([true]),
    );
    await page.getByLabel('Text filter').fill('');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(100);
  });

  it('draws the trace in time order, the log entries between the messages they came between', async () => {
    await page.goto(`${server.url}/portal/#/trace/${filled.session}`);
    const trace = page.locator('svg.trace');
    await trace.waitFor();
    const order = await trace
      .locator('g.trace-message, g.trace-log')
      .evaluateAll((nodes) =>
        nodes.map((node) =>
          node.classList.contains('trace-log')
            ? `log ${node.querySelector('title')?.textContent?.replace(/^.*\] /, '')}`
            : `message ${node.querySelector('.trace-label')?.textContent}`,
        ),
      );
    expect(order).toEqual([
      'log received batch',
      `message #${filled.session} request`,
      'log routing admission',
      `message #${filled.session + 1} request`,
      'log bed assigned',
      `message #${filled.session + 2} response`,
    ]);
  });
});
