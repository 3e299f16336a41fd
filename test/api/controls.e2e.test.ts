/**
 * Queue and message controls end to end, on a real `conveyor serve` (SQLite store): file services
 * send asynchronous requests (nobody waits for their replies) to an Echo operation and to one whose
 * record folder is missing, so its requests fail and are kept aside as suspended. Suspend and resume
 * a queue (kept across a server restart), abort, discard, resend, edit-and-resend; the event log names
 * the user; a viewer is refused every action; bad input is refused and changes nothing; every reply
 * of these routes fits the server's OpenAPI document.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { OpenApiCheck, type OpenApiDocument } from './support/openapi-check.ts';

const credentials = { admin: 'admin:controls-admin-pw', operator: 'ops:controls-ops-pw', viewer: 'watcher:controls-viewer-pw' } as const;
type Who = keyof typeof credentials;

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
let openapi: OpenApiCheck;

interface QueueJson {
  name: string;
  waiting: number;
  inProgress: number;
  suspended: boolean;
  suspendedBy: string | null;
  suspendedMessages: number;
}
interface HeaderJson {
  id: number;
  status: string;
  target: string;
  error: string | null;
}

async function api(method: string, path: string, body?: unknown, who: Who = 'operator'): Promise<HttpReply> {
  const headers = { authorization: `Basic ${Buffer.from(credentials[who]).toString('base64')}` };
  const reply = await httpCall({ url: server.url, headers }, method, path, body);
  if (reply.status === 200 && openapi && path.startsWith('/api/iop/controls')) openapi.check(method, template(path), reply.status, reply.json);
  return reply;
}

/** The OpenAPI path of a call: path parameters as `{name}`. */
function template(path: string): string {
  return (path.split('?')[0] as string).replace(/\/queues\/[^/]+\//, '/queues/{item}/').replace(/\/messages\/\d+/, '/messages/{id}');
}

async function startServer(): Promise<void> {
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_USER: 'admin', CONVEYOR_ADMIN_PASSWORD: 'controls-admin-pw' });
  openapi = new OpenApiCheck((await api('GET', '/api/iop/openapi.json', undefined, 'admin')).json as OpenApiDocument);
}

const folder = (name: string) => join(home.path, name);
const queues = async () => ((await api('GET', '/api/iop/controls/queues', undefined, 'viewer')).json as { items: QueueJson[] }).items;
const queueOf = async (name: string) => (await queues()).find((queue) => queue.name === name)!;
const suspended = async () => ((await api('GET', '/api/iop/controls/suspended', undefined, 'viewer')).json as { messages: HeaderJson[] }).messages;
const message = async (id: number) =>
  (await api('GET', `/api/iop/controls/messages/${id}`, undefined, 'viewer')).json as {
    message: HeaderJson;
    suspended: boolean;
    actions: string[];
    resentFrom: unknown;
    resends: unknown[];
  };
const recorded = (): string[] =>
  existsSync(folder('echo.jsonl'))
    ? readFileSync(folder('echo.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse((JSON.parse(line) as { data: string }).data) as { StringValue: string }).StringValue)
    : [];
const logTexts = async () =>
  ((await api('GET', '/api/iop/log/search?limit=200', undefined, 'viewer')).json as Array<{ text: string }>).map((entry) => entry.text);

function fileService(name: string, path: string, target: string) {
  return {
    name,
    classname: 'Conveyor.Service.FileInbound',
    settings: [
      { target: 'Adapter', name: 'FilePath', value: path },
      { target: 'Adapter', name: 'CallInterval', value: '0.2' },
      { target: 'Host', name: 'TargetConfigNames', value: target },
    ],
  };
}

beforeAll(async () => {
  home = tempDir('conveyor-controls-e2e-');
  mkdirSync(folder('in'));
  mkdirSync(folder('bad'));
  await startServer();
  for (const [name, role] of [
    ['ops', 'operator'],
    ['watcher', 'viewer'],
  ] as const) {
    const password = credentials[role === 'operator' ? 'operator' : 'viewer'].split(':')[1];
    expect((await api('PUT', `/api/iop/users/${name}`, { password, role }, 'admin')).status).toBe(200);
  }
  const definition = {
    name: 'Controls.Production',
    items: [
      fileService('In', folder('in'), 'Echo'),
      fileService('BadIn', folder('bad'), 'Broken'),
      { name: 'Echo', classname: 'Conveyor.Operation.Echo', settings: [{ target: 'Host', name: 'FilePath', value: folder('echo.jsonl') }] },
      { name: 'Broken', classname: 'Conveyor.Operation.Echo', settings: [{ target: 'Host', name: 'FilePath', value: join(folder('missing'), 'x.jsonl') }] },
    ],
  };
  expect((await api('PUT', '/api/iop/definition', { definition }, 'admin')).status).toBe(200);
  expect((await api('POST', '/api/iop/start', { production: 'Controls.Production' }, 'admin')).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

describe('queue suspend and resume', () => {
  it('keeps requests queued while suspended (also across a server restart), aborts one, delivers the rest once resumed', async () => {
    expect((await api('POST', '/api/iop/controls/queues/Echo/suspend', {}, 'viewer')).status).toBe(403);
    const suspendedReply = await api('POST', '/api/iop/controls/queues/Echo/suspend', {});
    expect(suspendedReply.status, suspendedReply.text).toBe(200);
    expect(suspendedReply.json).toMatchObject({ item: 'Echo', suspended: true, suspendedBy: 'ops' });

    writeFileSync(join(folder('in'), 'a.txt'), 'first');
    writeFileSync(join(folder('in'), 'b.txt'), 'second');
    await eventually(async () => (await queueOf('Echo')).waiting === 2 || undefined, 'two requests waiting in the suspended queue');
    expect(await queueOf('Echo')).toMatchObject({ waiting: 2, inProgress: 0, suspended: true, suspendedBy: 'ops' });
    expect(recorded()).toEqual([]);

    await server.kill('SIGTERM');
    await startServer();
    expect((await api('GET', '/api/iop/status', undefined, 'viewer')).json).toMatchObject({ status: 'stopped' });
    expect((await api('POST', '/api/iop/start', { production: 'Controls.Production' }, 'admin')).status).toBe(200);
    expect(await queueOf('Echo')).toMatchObject({ waiting: 2, suspended: true });
    expect(recorded()).toEqual([]);

    const waiting = ((await api('GET', '/api/iop/messages?target=Echo&status=queued', undefined, 'viewer')).json as { messages: HeaderJson[] }).messages;
    const first = waiting.at(-1)!;
    expect((await api('POST', '/api/iop/controls/messages/abort', { ids: [first.id] }, 'viewer')).status).toBe(403);
    const aborted = await api('POST', '/api/iop/controls/messages/abort', { ids: [first.id] });
    expect(aborted.json).toEqual({ results: [{ id: first.id, done: true, reason: null }] });
    expect((await message(first.id)).message).toMatchObject({ status: 'discarded', error: 'Aborted by ops' });

    expect((await api('POST', '/api/iop/controls/queues/Echo/resume', {})).json).toEqual({
      item: 'Echo',
      suspended: false,
      suspendedBy: null,
      suspendedAt: null,
    });
    await eventually(() => recorded().length === 1 || undefined, 'the request left in the queue delivered once resumed');
    expect(recorded()).toEqual(['second']);
    expect(await queueOf('Echo')).toMatchObject({ waiting: 0, suspended: false });
    await eventually(async () => {
      const log = await logTexts();
      return (
        (log.includes('Queue of Echo suspended by ops: its messages stay queued until it is resumed') &&
          log.includes('Queue of Echo resumed by ops') &&
          log.includes(`Message ${first.id} aborted by ops: taken out of the queue of Echo`)) ||
        undefined
      );
    }, 'the event log names the user of each action');
  }, 120_000);
});

describe('suspended messages', () => {
  it('keeps failed requests nobody waited for aside; resend to another target, edit-and-resend and discard deal with them', async () => {
    writeFileSync(join(folder('bad'), 'x1.txt'), 'one');
    writeFileSync(join(folder('bad'), 'x2.txt'), 'two');
    writeFileSync(join(folder('bad'), 'x3.txt'), 'three');
    const kept = await eventually(async () => {
      const list = await suspended();
      return list.length === 3 ? list : undefined;
    }, 'three suspended messages');
    expect(kept.every((m) => m.status === 'error' && m.target === 'Broken')).toBe(true);
    expect((await queueOf('Broken')).suspendedMessages).toBe(3);
    const [third, second, first] = kept as [HeaderJson, HeaderJson, HeaderJson];
    expect(await message(first.id)).toMatchObject({ suspended: true, actions: ['discard', 'resend', 'edit-resend'], resentFrom: null, resends: [] });

    const before = recorded().length;
    expect((await api('POST', '/api/iop/controls/messages/resend', { ids: [first.id], target: 'Echo' }, 'viewer')).status).toBe(403);
    const resent = (await api('POST', '/api/iop/controls/messages/resend', { ids: [first.id], target: 'Echo' })).json as {
      results: Array<{ id: number; resendId: number; target: string }>;
    };
    expect(resent.results).toEqual([{ id: first.id, resendId: expect.any(Number), target: 'Echo' }]);
    const edited = await api('POST', `/api/iop/controls/messages/${second.id}/edit-resend`, { body: { StringValue: 'two, corrected' }, target: 'Echo' });
    expect(edited.status, edited.text).toBe(200);
    await eventually(() => recorded().length === before + 2 || undefined, 'both resends delivered');
    expect(recorded().slice(before).sort()).toEqual(['one', 'two, corrected']);
    const link = await message(resent.results[0]!.resendId);
    expect(link.resentFrom).toMatchObject({ originalId: first.id, edited: false, user: 'ops', target: 'Echo' });
    expect((await message(first.id)).message.status).toBe('discarded');

    expect((await api('POST', '/api/iop/controls/messages/discard', { ids: [third.id] }, 'viewer')).status).toBe(403);
    expect((await api('POST', '/api/iop/controls/messages/discard', { ids: [third.id] })).json).toEqual({
      results: [{ id: third.id, done: true, reason: null }],
    });
    expect(await suspended()).toEqual([]);
    await eventually(async () => {
      const log = await logTexts();
      return (
        (log.includes(`Message ${first.id} resent by ops as message ${resent.results[0]!.resendId} to Echo`) &&
          log.some((text) => text.startsWith(`Message ${second.id} edited and resent by ops as message `)) &&
          log.includes(`Message ${third.id} (suspended) discarded by ops`)) ||
        undefined
      );
    }, 'the event log names the user of each action');
  }, 120_000);
});

describe('bad input and roles', () => {
  it('refuses with a clear error and changes nothing', async () => {
    const completed = ((await api('GET', '/api/iop/messages?target=Echo&status=completed&limit=1', undefined, 'viewer')).json as { messages: HeaderJson[] })
      .messages[0]!;
    const before = { queues: await queues(), suspended: await suspended(), message: await message(completed.id) };
    const refusals: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/api/iop/controls/messages/abort', { ids: [] }, 400, /INVALID_INPUT/],
      ['POST', '/api/iop/controls/messages/abort', { ids: ['1'] }, 400, /INVALID_INPUT/],
      ['POST', '/api/iop/controls/messages/abort', { ids: [completed.id], extra: 1 }, 400, /INVALID_INPUT/],
      [
        'POST',
        '/api/iop/controls/messages/abort',
        { ids: [completed.id] },
        409,
        new RegExp(`MESSAGE_STATE: Cannot abort message ${completed.id}: it is completed, not queued`),
      ],
      ['POST', '/api/iop/controls/messages/discard', { ids: [completed.id] }, 409, /MESSAGE_STATE: .*not in error/],
      ['POST', '/api/iop/controls/messages/discard', { ids: [99_999_999] }, 404, /MESSAGE_NOT_FOUND: Message 99999999 does not exist/],
      [
        'POST',
        '/api/iop/controls/messages/resend',
        { ids: [completed.id], target: 'Nobody' },
        404,
        /ITEM_NOT_FOUND: No item named 'Nobody'.*nothing was resent/,
      ],
      ['POST', `/api/iop/controls/messages/${completed.id}/edit-resend`, { body: '[1, 2]', classname: 'msg.Python' }, 400, /JSON object/],
      ['POST', `/api/iop/controls/messages/${completed.id}/edit-resend`, {}, 400, /INVALID_INPUT/],
      ['POST', '/api/iop/controls/queues/Nobody/suspend', {}, 404, /ITEM_NOT_FOUND: No item named 'Nobody'/],
      ['GET', '/api/iop/controls/messages/0', undefined, 400, /INVALID_INPUT/],
      ['GET', '/api/iop/controls/suspended?limit=501', undefined, 400, /INVALID_INPUT/],
    ];
    for (const [method, path, body, status, text] of refusals) {
      const reply = await api(method, path, body);
      expect(reply.status, `${method} ${path} ${JSON.stringify(body)}: ${reply.text}`).toBe(status);
      expect((reply.json as { error: string }).error).toMatch(text);
    }
    for (const [method, path] of [
      ['POST', '/api/iop/controls/queues/Echo/resume'],
      ['POST', `/api/iop/controls/messages/${completed.id}/edit-resend`],
    ] as const) {
      expect((await api(method, path, { body: {} }, 'viewer')).status).toBe(403);
    }
    expect((await httpCall({ url: server.url }, 'GET', '/api/iop/controls/queues')).status).toBe(401);
    expect({ queues: await queues(), suspended: await suspended(), message: await message(completed.id) }).toEqual(before);
  }, 60_000);
});
