/**
 * Retention against a real `conveyor serve` over a SQLite home filled beforehand through the store
 * (some rows aged 40 days by rewriting their times in the database file): `POST /messages/purge` with a
 * dry run first, then for real; queued, in-progress and suspended messages survive; event-log entries
 * go too; the purge is in the event log with its user; bad input (both bounds, neither, a bad date,
 * negative days, unknown fields) is refused and deletes nothing; a viewer may not purge; the policy
 * round trip; the background run of a policy in the same server; and `conveyor purge`, the command
 * that asks a home's running server to purge. Replies are checked against the server's OpenAPI document.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewMessage } from '../../src/store/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { OpenApiCheck, type OpenApiDocument } from './support/openapi-check.ts';

const dayMs = 86_400_000;
let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
let openapi: OpenApiCheck;
const ids = { oldDone: [] as number[], recent: [] as number[], queued: 0, inProgress: 0, suspended: 0, failedTold: 0 };

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
  body: { classname: 'msg.Order', encoding: 'json', data: JSON.stringify({ order: 'x'.repeat(500) }) },
  ...overrides,
});

const logEntry = (text: string) => ({
  type: 'Info' as const,
  configName: 'Lab',
  job: '1',
  messageId: null,
  sessionId: null,
  sourceClass: 'bo.Lab',
  sourceMethod: 'on_message',
  text,
});

beforeAll(async () => {
  home = tempDir('conveyor-retention-');
  const path = `${home.path}/conveyor.db`;
  const store = await openStore({ sqlitePath: path });
  ids.oldDone = await store.messages.insert(Array.from({ length: 10 }, () => message()));
  [ids.queued] = (await store.messages.insert([message({ status: 'queued' })])) as [number];
  [ids.inProgress] = (await store.messages.insert([message({ status: 'delivered' })])) as [number];
  [ids.suspended] = (await store.messages.insert([message({ status: 'queued' })])) as [number];
  [ids.failedTold] = (await store.messages.insert([message({ status: 'queued', responseRequired: true })])) as [number];
  await store.messages.update([
    { id: ids.suspended, status: 'error', error: 'lab down' },
    { id: ids.failedTold, status: 'error', error: 'lab down, caller told' },
  ]);
  await store.log.append('USER', [logEntry('old 1'), logEntry('old 2'), logEntry('old 3')]);
  await store.close();
  // Age everything so far by 40 days, as if it had been written then.
  const db = new Database(path);
  db.prepare('UPDATE messages SET created_at = created_at - ?, updated_at = updated_at - ?').run(40 * dayMs, 40 * dayMs);
  db.prepare('UPDATE log_entries SET time_logged = time_logged - ?').run(40 * dayMs);
  db.close();
  const again = await openStore({ sqlitePath: path });
  ids.recent = await again.messages.insert(Array.from({ length: 5 }, () => message()));
  await again.log.append('USER', [logEntry('recent 1'), logEntry('recent 2')]);
  await again.close();
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_PASSWORD: 'pw' });
  expect((await server.local('PUT', '/api/iop/users/vera', { password: 'pw-vera', role: 'viewer' })).status).toBe(200);
  openapi = new OpenApiCheck((await server.local('GET', '/api/iop/openapi.json')).json as OpenApiDocument);
}, 120_000);

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

/** A call over the home's socket; a 200 reply of this suite's routes is checked against the OpenAPI document. */
async function local(method: string, path: string, body?: unknown): Promise<HttpReply> {
  const reply = await server.local(method, path, body);
  if (reply.status === 200 && /^\/api\/iop\/(messages\/purge|retention)/.test(path))
    openapi.check(method, path.split('?')[0] as string, reply.status, reply.json);
  return reply;
}

const purge = (body: unknown, query = '') => local('POST', `/api/iop/messages/purge${query}`, body);
const retention = async () =>
  (await local('GET', '/api/iop/retention')).json as { usage: { messages: number; logEntries: number; oldestMessage: string | null } };
const exists = async (id: number) => (await server.local('GET', `/api/iop/messages/${id}`)).status === 200;
const errorOf = (reply: HttpReply) => (reply.json as { error: string }).error;

describe('POST /messages/purge', () => {
  it('refuses bad input with a clear error and deletes nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /olderThan \(an ISO 8601 instant\) or keepDays/],
      [{ dryRun: true }, /olderThan \(an ISO 8601 instant\) or keepDays/],
      [{ olderThan: '2026-01-01T00:00:00Z', keepDays: 3 }, /either olderThan or keepDays, not both/],
      [{ olderThan: 'last tuesday' }, /olderThan must be an ISO 8601 instant.*"last tuesday"/],
      [{ olderThan: '2026-13-45' }, /olderThan must be an ISO 8601 instant/],
      [{ keepDays: -1 }, /keepDays/],
      [{ keepDays: '30' }, /keepDays/],
      [{ keepDays: 30, everything: true }, /everything/],
    ];
    for (const [body, text] of cases) {
      const reply = await purge(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(reply)).toMatch(text);
    }
    expect((await purge({ keepDays: 1 }, '?namespace=NOPE')).status).toBe(404);
    expect((await retention()).usage).toMatchObject({ messages: 19, logEntries: 5 });
  });

  it('is for admins: a viewer is refused', async () => {
    const reply = await httpCall(
      { url: server.url, headers: { authorization: `Basic ${Buffer.from('vera:pw-vera').toString('base64')}` } },
      'POST',
      '/api/iop/messages/purge',
      {
        keepDays: 30,
      },
    );
    expect(reply.status).toBe(403);
    expect((await retention()).usage.messages).toBe(19);
  });

  it('counts first on a dry run, then purges the old finished messages and log entries, keeping queued, in-progress and suspended ones', async () => {
    const dry = await purge({ keepDays: 30, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.json).toMatchObject({ purged: 11, dryRun: true, messages: 11, bodies: 11, logEntries: 3, reclaimedBytes: 0, complete: true });
    expect((dry.json as { bytesEstimate: number }).bytesEstimate).toBeGreaterThan(11 * 500);
    expect((await retention()).usage).toMatchObject({ messages: 19, logEntries: 5 });

    const real = await purge({ keepDays: 30 });
    expect(real.status).toBe(200);
    expect(real.json).toMatchObject({ purged: 11, dryRun: false, messages: 11, logEntries: 3, complete: true });
    expect(new Date((real.json as { olderThan: string }).olderThan).getTime()).toBeLessThan(Date.now() - 29 * dayMs);

    for (const id of [...ids.oldDone, ids.failedTold]) expect(await exists(id)).toBe(false);
    for (const id of [ids.queued, ids.inProgress, ids.suspended, ...ids.recent]) expect(await exists(id)).toBe(true);
    const log = (await server.local('GET', '/api/iop/log?top=20')).json as Array<{ Text?: string; text?: string }> | { entries?: unknown };
    const texts = JSON.stringify(log);
    expect(texts).not.toContain('old 1');
    expect(texts).toContain('recent 1');
    expect(texts).toMatch(/local purged 11 messages and 3 log entries older than/);
    // Again: nothing more is old enough.
    expect((await purge({ keepDays: 30 })).json).toMatchObject({ purged: 0, logEntries: 0 });
  });

  it('takes an instant too, and can leave the event log alone', async () => {
    const recentDone = ids.recent[0]!;
    const inFuture = new Date(Date.now() + 60_000).toISOString();
    const dry = await purge({ olderThan: inFuture, dryRun: true, includeLog: false });
    expect(dry.json).toMatchObject({ purged: 5, logEntries: 0, olderThan: inFuture });
    expect(await exists(recentDone)).toBe(true);
  });
});

describe('GET and PUT /retention', () => {
  it('shows the store, sets a policy, refuses a bad one and removes it with nulls', async () => {
    const before = (await local('GET', '/api/iop/retention')).json as Record<string, unknown>;
    expect(before).toMatchObject({ namespace: 'USER', policy: null, usage: { reclaim: 'incremental', messages: 8 } });
    expect((before['usage'] as { storeBytes: number }).storeBytes).toBeGreaterThan(0);

    const set = await local('PUT', '/api/iop/retention', { messageDays: 7, logDays: 30, maxStoreBytes: null });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ policy: { messageDays: 7, logDays: 30, maxStoreBytes: null } });

    for (const bad of [
      { messageDays: -1, logDays: 1, maxStoreBytes: null },
      { messageDays: 1, logDays: 1 },
      { messageDays: 1, logDays: 1, maxStoreBytes: 0 },
    ]) {
      const reply = await server.local('PUT', '/api/iop/retention', bad);
      expect(reply.status, JSON.stringify(bad)).toBe(400);
      expect(errorOf(reply)).toMatch(/messageDays|maxStoreBytes/);
    }
    expect(((await server.local('GET', '/api/iop/retention')).json as { policy: unknown }).policy).toEqual({
      messageDays: 7,
      logDays: 30,
      maxStoreBytes: null,
    });

    const cleared = await local('PUT', '/api/iop/retention', { messageDays: null, logDays: null, maxStoreBytes: null });
    expect((cleared.json as { policy: unknown }).policy).toBeNull();
  });
});

interface BackgroundReport {
  usage: { messages: number };
  lastRun: { messages: number } | null;
}

describe('the background run of a policy', () => {
  it('purges what the policy says on its own, in the running server, and reports the run', async () => {
    const own = tempDir('conveyor-retention-bg-');
    const path = `${own.path}/conveyor.db`;
    const store = await openStore({ sqlitePath: path });
    await store.messages.insert(Array.from({ length: 30 }, () => message()));
    const [queued] = await store.messages.insert([message({ status: 'queued' })]);
    await store.retention.putPolicy('USER', { messageDays: 0, logDays: null, maxStoreBytes: null });
    await store.close();
    const background = await startServerProcess(own.path, [], { CONVEYOR_ADMIN_PASSWORD: 'pw', CONVEYOR_RETENTION_INTERVAL_MS: '200' });
    try {
      // The run's log entry comes last (after the purge and the reclaim of the freed pages).
      await eventually(
        async () => {
          const log = JSON.stringify((await background.local('GET', '/api/iop/log?top=50')).json);
          return /Retention policy purged 30 messages/.test(log);
        },
        'the background run in the event log',
        30_000,
      );
      const report = (await background.local('GET', '/api/iop/retention')).json as BackgroundReport;
      expect(report.usage.messages).toBe(1);
      expect(report.lastRun?.messages).toBe(30);
      expect((await background.local('GET', `/api/iop/messages/${queued}`)).status).toBe(200);
    } finally {
      await background.kill();
      own.remove();
    }
  }, 60_000);
});

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `conveyor purge …` as an operator runs it on the server's machine. Asynchronous: a synchronous spawn
 * would hold this process's event loop, and the kept-alive socket to the server would go stale meanwhile.
 */
function conveyorPurge(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(repoRoot, 'src/server/main.ts'), 'purge', ...args],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CONVEYOR_HOME: '' } },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

describe('conveyor purge', () => {
  // Runs last: it purges the recent finished messages the tests above keep.
  it('asks the running server of the home: a dry run, then the purge; queued, in-progress and suspended messages stay', async () => {
    const dry = await conveyorPurge(['--home', home.path, '--keep-days', '0', '--dry-run', '--no-log']);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/^Would purge 5 messages \(5 bodies\) and 0 event-log entries older than \S+Z, about \d+ bytes\n$/);
    expect((await retention()).usage.messages).toBe(8);

    const real = await conveyorPurge(['--home', home.path, '--keep-days', '0']);
    expect(real.status).toBe(0);
    expect(real.stdout).toMatch(
      /^Purged 5 messages \(5 bodies\) and \d+ event-log entries older than \S+Z, about \d+ bytes\nGave \d+ bytes back to the file system; \d+ batches in \d+ ms\n$/,
    );
    for (const id of ids.recent) expect(await exists(id)).toBe(false);
    for (const id of [ids.queued, ids.inProgress, ids.suspended]) expect(await exists(id)).toBe(true);
  }, 300_000);

  it('refuses a bad number of days and a home whose server does not run, saying what to do', async () => {
    const bad = await conveyorPurge(['--home', home.path, '--keep-days', 'thirty']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('Error: --keep-days must be a number of days, not thirty\n');
    const both = await conveyorPurge(['--home', home.path, '--keep-days', '1', '--older-than', '2026-01-01']);
    expect(both.status).toBe(1);
    expect(both.stderr).toMatch(/^Error: ERROR #INVALID_INPUT: Give either olderThan or keepDays, not both/);
    const idle = tempDir('conveyor-retention-idle-');
    try {
      const none = await conveyorPurge(['--home', idle.path, '--keep-days', '1']);
      expect(none.status).toBe(1);
      expect(none.stderr).toBe(
        `Error: No Conveyor server runs for ${idle.path}: a purge runs inside the server\nStart it (conveyor serve --home ${idle.path}), then run conveyor purge again.\n`,
      );
    } finally {
      idle.remove();
    }
    expect((await retention()).usage.messages).toBe(3);
  }, 300_000);
});
