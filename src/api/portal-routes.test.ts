import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorError } from '../core/errors.ts';
import type { LogEntry } from '../core/log.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import type { LogQuery, MessageFilter } from '../store/store.ts';
import { FakeEngine } from '../../test/api/support/fake-engine.ts';
import { installAuth } from './auth.ts';
import { installErrorReplies, installJsonParser } from './error-replies.ts';
import type { DtlDiagnostic } from '../dtl/index.ts';
import type { FakeDtl } from '../../test/api/support/fake-namespace.ts';
import { parseTime, registerPortalRoutes } from './portal-routes.ts';
import { RouteCatalog } from './route-catalog.ts';
import { UserDirectory, type Role } from './users.ts';

function header(id: number, patch: Partial<MessageHeader> = {}): StoredMessage {
  return {
    id,
    namespace: 'USER',
    sessionId: 1,
    parentId: id === 1 ? null : 1,
    correspondingId: null,
    kind: 'request',
    source: 'In',
    target: 'Out',
    responseRequired: false,
    status: 'completed',
    priority: 0,
    description: '',
    error: null,
    attempts: 1,
    createdAt: 1_000 + id,
    updatedAt: 1_000 + id,
    leaseOwner: null,
    leaseUntil: null,
    body: { classname: 'msg.Order', encoding: 'json', data: `{"n":${id}}` },
    ...patch,
  };
}

/** The engine's edge: FakeEngine plus messages, a log search and an in-memory DTL service. */
class PortalFakeEngine extends FakeEngine {
  messages: StoredMessage[] = [header(1), header(2, { status: 'error', error: 'boom' }), header(3, { sessionId: 2, parentId: null })];
  lastFilter: MessageFilter | null = null;
  lastLogQuery: LogQuery | null = null;
  lookups = new Map<string, Record<string, string>>();
  // FakeEngine declares these without parameters; optional ones keep the override compatible.
  override async searchMessages(_ns?: string, given?: MessageFilter): Promise<MessageHeader[]> {
    const filter = given ?? { limit: 50 };
    this.lastFilter = filter;
    return this.messages
      .filter((m) => (filter.status ? m.status === filter.status : true))
      .sort((a, b) => b.id - a.id)
      .slice(0, filter.limit);
  }
  override async getMessage(_ns: string, id: number): Promise<StoredMessage> {
    const found = this.messages.find((m) => m.id === id);
    if (!found) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `No message ${id}`);
    return found;
  }
  override async sessionTrace(_ns?: string, session?: number): Promise<MessageHeader[]> {
    return this.messages.filter((m) => m.sessionId === session);
  }
  override async resend(ns = 'USER', id = 0, target?: string): Promise<number> {
    const original = await this.getMessage(ns, id);
    const copy = header(this.messages.length + 1, { sessionId: 9, target: target ?? original.target });
    this.messages.push(copy);
    return copy.id;
  }
  async searchLog(namespace: string, query: LogQuery): Promise<LogEntry[]> {
    this.lastLogQuery = query;
    return [...this.ns(namespace).log]
      .reverse()
      .filter((e) => (query.sessionId === undefined ? true : e.sessionId === query.sessionId))
      .slice(0, query.limit);
  }
  dtl: FakeDtl = {
    listTransforms: async () => [],
    getTransform: async (_ns, name) => {
      throw new ConveyorError('ERR_TRANSFORM_NOT_FOUND', `No transform ${name}`);
    },
    transformHistory: async () => [],
    putTransform: async (_ns, name, source) => ({ name, source, version: 1, updatedAt: 0 }),
    deleteTransform: async () => undefined,
    compileTransform: async (_ns, source): Promise<DtlDiagnostic[]> =>
      source.includes('<transform') ? [] : [{ document: 'T', line: 1, column: 1, severity: 'error', message: 'no <transform> root' }],
    runTransform: async (_ns, _t, input) => ({ target: input.json, targetClass: 'x', status: 'ok', errors: [], trace: [], errorEntries: [], traceEntries: [] }),
    listSchemas: async () => [],
    getSchema: async (_ns, name) => ({ name, category: 'p', schema: {} }),
    schemaTree: async () => [{ name: 'a', path: 'a', type: '%String', repeating: false, required: false, children: [] }],
    importSchema: async () => undefined,
    deleteSchema: async () => undefined,
    lookupTables: async () => [...this.lookups.keys()],
    getLookup: async (_ns, table) => {
      const found = this.lookups.get(table);
      if (!found) throw new ConveyorError('ERR_LOOKUP_NOT_FOUND', `No lookup table ${table}`);
      return found;
    },
    putLookup: async (_ns, table, entries) => void this.lookups.set(table, entries),
    putLookups: async (_ns, tables) => {
      for (const [table, entries] of Object.entries(tables)) this.lookups.set(table, entries);
    },
    deleteLookup: async (_ns, table) => void this.lookups.delete(table),
  };
}

const passwords: Record<Role, string> = { viewer: 'v-pw', operator: 'o-pw', admin: 'a-pw' };
const auth = (role: Role) => ({ authorization: `Basic ${Buffer.from(`${role}:${passwords[role]}`).toString('base64')}` });

let home: string;
let users: UserDirectory;

async function build(engine: FakeEngine): Promise<FastifyInstance> {
  const app = Fastify();
  app.decorateRequest('user', undefined);
  installJsonParser(app);
  installErrorReplies(app, { bodyLimit: 1 << 20, apiPrefix: '/api/iop' });
  installAuth(app, users);
  await app.register(async (scope) => registerPortalRoutes(scope, engine, new RouteCatalog()), { prefix: '/api/iop' });
  await app.ready();
  return app;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'conveyor-portal-'));
  users = await UserDirectory.open(join(home, 'users.json'));
  for (const role of ['viewer', 'operator', 'admin'] as const) await users.set(role, passwords[role], role);
});
afterAll(async () => rm(home, { recursive: true, force: true }));

describe('portal routes', () => {
  let engine: PortalFakeEngine;
  let app: FastifyInstance;
  beforeEach(async () => {
    engine = new PortalFakeEngine();
    app = await build(engine);
  });

  it('says who is signed in, with the role and namespaces', async () => {
    const reply = await app.inject({ url: '/api/iop/whoami', headers: auth('operator') });
    expect(reply.json()).toEqual({ user: 'operator', role: 'operator', namespaces: ['USER', 'OTHER'] });
    expect((await app.inject({ url: '/api/iop/whoami' })).statusCode).toBe(401);
  });

  it('searches messages with filters and pages with next_before', async () => {
    const reply = await app.inject({ url: '/api/iop/messages?status=completed&limit=1&from=2026-01-01 00:00:00&session=1&text=n', headers: auth('viewer') });
    expect(reply.statusCode).toBe(200);
    const body = reply.json() as { messages: MessageHeader[]; next_before: number | null };
    expect(body.messages.map((m) => m.id)).toEqual([3]);
    expect(body.next_before).toBe(3);
    expect(engine.lastFilter).toEqual({ limit: 1, status: 'completed', from: Date.UTC(2026, 0, 1), sessionId: 1, text: 'n' });
  });

  it('refuses bad filters with a message naming the field', async () => {
    const status = await app.inject({ url: '/api/iop/messages?status=lost', headers: auth('viewer') });
    expect(status.statusCode).toBe(400);
    expect(status.json().error).toMatch(
      /status must be "queued", "delivered", "completed", "error" or "discarded", not "lost" in the query of GET \/api\/iop\/messages$/,
    );
    const limit = await app.inject({ url: '/api/iop/messages?limit=5000', headers: auth('viewer') });
    expect(limit.statusCode).toBe(400);
    expect(limit.json().error).toMatch(/limit must be <= 500 in the query/);
    const unknown = await app.inject({ url: '/api/iop/messages?stauts=error', headers: auth('viewer') });
    expect(unknown.json().error).toMatch(/Unknown field stauts in the query of GET \/api\/iop\/messages/);
    expect(engine.lastFilter).toBeNull();
    const time = await app.inject({ url: '/api/iop/messages?from=yesterday', headers: auth('viewer') });
    expect(time.json().error).toMatch(/from must be a time/);
  });

  it('returns one message with its body, 404 for an unknown id, 400 for a bad id', async () => {
    expect((await app.inject({ url: '/api/iop/messages/2', headers: auth('viewer') })).json()).toMatchObject({
      id: 2,
      error: 'boom',
      body: { data: '{"n":2}' },
    });
    const missing = await app.inject({ url: '/api/iop/messages/99', headers: auth('viewer') });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'ERROR #MESSAGE_NOT_FOUND: No message 99', code: 'ERR_MESSAGE_NOT_FOUND' });
    expect((await app.inject({ url: '/api/iop/messages/abc', headers: auth('viewer') })).statusCode).toBe(400);
  });

  it('builds a session trace with its log entries, oldest first', async () => {
    engine.addLog('USER', 3);
    engine.state.get('USER')!.log[1]!.sessionId = 1;
    const reply = await app.inject({ url: '/api/iop/sessions/1', headers: auth('viewer') });
    const body = reply.json() as { messages: MessageHeader[]; log: Array<{ id: number }> };
    expect(body.messages.map((m) => m.id)).toEqual([1, 2]);
    expect(engine.lastLogQuery).toEqual({ sessionId: 1, limit: 1000 });
    expect((await app.inject({ url: '/api/iop/sessions/77', headers: auth('viewer') })).statusCode).toBe(404);
  });

  it('resends a message to another target for an operator only', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/iop/messages/1/resend', headers: auth('viewer'), payload: {} })).statusCode).toBe(403);
    const reply = await app.inject({ method: 'POST', url: '/api/iop/messages/1/resend', headers: auth('operator'), payload: { target: 'Other' } });
    expect(reply.json()).toEqual({ id: 4, session_id: 9, target: 'Other' });
  });

  it('lists items with state, kind, queue depth and targets', async () => {
    engine.state.get('USER')!.defaultProduction = 'Demo.Production';
    engine.state.get('USER')!.queues = [{ target: 'Python.FileOperation', queued: 3, delivered: 1, oldest: 5 }];
    // Arrows come from the target settings (no traffic needed); flows seen at run time only count while this production runs.
    const definitions = engine.state.get('USER')!.definitions;
    const original = definitions.get('Demo.Production')!;
    const [operation, router] = original.items;
    const routed = { ...router!, settings: [{ target: 'Host' as const, name: 'TargetConfigNames', value: 'Python.FileOperation' }] };
    definitions.set('Demo.Production', { ...original, items: [operation!, routed] });
    engine.edges = [{ from: 'Python.FileOperation', to: 'Python.Router' }];
    const body = (await app.inject({ url: '/api/iop/items', headers: auth('viewer') })).json();
    definitions.set('Demo.Production', original);
    engine.edges = [];
    expect(body.running).toBe(false);
    expect(body.items).toEqual([
      {
        name: 'Python.FileOperation',
        classname: 'Python.FileOperation',
        kind: 'operation',
        enabled: true,
        state: 'stopped',
        jobs: 0,
        error: null,
        queued: 3,
        delivered: 1,
        oldest: 5,
        targets: [],
      },
      {
        name: 'Python.Router',
        classname: 'Python.Router',
        kind: 'process',
        enabled: false,
        state: 'disabled',
        jobs: 0,
        error: null,
        queued: 0,
        delivered: 0,
        oldest: null,
        targets: ['Python.FileOperation'],
      },
    ]);
  });

  it('reads and replaces a definition (admin), keeping categories and checking fields', async () => {
    const read = (await app.inject({ url: '/api/iop/definition?production=Demo.Production', headers: auth('viewer') })).json();
    read.items[0].settings[0].value = '/data';
    expect((await app.inject({ method: 'PUT', url: '/api/iop/definition', headers: auth('operator'), payload: { definition: read } })).statusCode).toBe(403);
    const saved = await app.inject({ method: 'PUT', url: '/api/iop/definition', headers: auth('admin'), payload: { definition: read } });
    // The fake engine registers no class: the definition is stored, and the reply says so per item.
    expect(saved.json()).toEqual({
      production: 'Demo.Production',
      items: 2,
      warnings: ['Python.FileOperation', 'Python.Router'].map(
        (name) =>
          `Item ${name}: class ${name} is not registered in namespace USER; the item cannot start until it is (migrate its package, or correct the class name)`,
      ),
    });
    const stored = await engine.getDefinition('USER', 'Demo.Production');
    expect(stored.items[0]!.settings).toEqual([{ target: 'Host', name: 'path', value: '/data' }]);
    read.items[1].pool_size = -1;
    const bad = await app.inject({ method: 'PUT', url: '/api/iop/definition', headers: auth('admin'), payload: { definition: read } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('ERROR #INVALID_INPUT: item Python.Router: pool_size must be an integer of at least 0, not -1');
    const empty = await app.inject({
      method: 'PUT',
      url: '/api/iop/definition',
      headers: auth('admin'),
      payload: { definition: { ...read, items: undefined } },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/definition\.items is required in the body of PUT \/api\/iop\/definition$/);
    expect((await engine.getDefinition('USER', 'Demo.Production')).items).toHaveLength(2);
  });

  it('runs a test call and answers its session and duration', async () => {
    await engine.start('USER', 'Demo.Production');
    const reply = await app.inject({
      method: 'POST',
      url: '/api/iop/test-run',
      headers: auth('operator'),
      payload: { target: 'Python.FileOperation', classname: 'msg.Ping', body: { a: 1 } },
    });
    expect(reply.json()).toEqual({ classname: 'msg.Reply', body: '{"ok":true}', truncated: false, session_id: 1, duration_ms: 1 });
    expect(engine.lastCall('test')?.args[0]).toEqual({ target: 'Python.FileOperation', classname: 'msg.Ping', body: { a: 1 }, restart: false });
    const missing = await app.inject({ method: 'POST', url: '/api/iop/test-run', headers: auth('operator'), payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('ERROR #INVALID_INPUT: target is required in the body of POST /api/iop/test-run');
  });

  it('searches the event log and validates its type', async () => {
    engine.addLog('USER', 5);
    const entries = (await app.inject({ url: '/api/iop/log/search?limit=2', headers: auth('viewer') })).json() as Array<{ id: number; time_logged: string }>;
    expect(entries.map((e) => e.id)).toEqual([5, 4]);
    expect((await app.inject({ url: '/api/iop/log/search?type=Loud', headers: auth('viewer') })).json().error).toMatch(
      /type must be "Assert", "Error", .* or "Unknown", not "Loud"/,
    );
  });

  it('stores, lists and validates lookup tables; compiles and runs transforms', async () => {
    const put = await app.inject({ method: 'PUT', url: '/api/iop/lookups/Codes', headers: auth('operator'), payload: { entries: { a: '1', b: 2 } } });
    expect(put.json()).toEqual({ table: 'Codes', entries: 2 });
    expect((await app.inject({ url: '/api/iop/lookups/Codes', headers: auth('viewer') })).json()).toEqual({ table: 'Codes', entries: { a: '1', b: '2' } });
    expect((await app.inject({ url: '/api/iop/lookups/None', headers: auth('viewer') })).statusCode).toBe(404);
    const bad = await app.inject({ method: 'PUT', url: '/api/iop/lookups/Codes', headers: auth('operator'), payload: { entries: { a: { x: 1 } } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('ERROR #INVALID_INPUT: entries.a must be a string or a number, not an object in the body of PUT /api/iop/lookups/:name');
    const compiled = (await app.inject({ method: 'POST', url: '/api/iop/transforms/compile', headers: auth('viewer'), payload: { source: '<x/>' } })).json();
    expect(compiled).toEqual({ ok: false, diagnostics: [{ line: 1, column: 1, severity: 'error', message: 'no <transform> root' }] });
    const run = await app.inject({ method: 'POST', url: '/api/iop/transforms/run', headers: auth('viewer'), payload: { name: 'T' } });
    expect(run.json().error).toMatch(/json \(the source message as a JSON value\) or envelope \(the test envelope XML\) is required/);
    const schema = await app.inject({ method: 'POST', url: '/api/iop/schemas/import', headers: auth('admin'), payload: { package: 'p', name: 'n' } });
    expect(schema.json().error).toMatch(/Give schema .* or path/);
  });
});

describe('parseTime', () => {
  it('reads epoch ms, the spec timestamp as UTC, and ISO', () => {
    expect(parseTime('from', '12')).toBe(12);
    expect(parseTime('from', '2026-11-22 10:00:00')).toBe(Date.UTC(2026, 10, 22, 10));
    expect(parseTime('from', '2026-11-22T10:00:00Z')).toBe(Date.UTC(2026, 10, 22, 10));
    expect(parseTime('from', undefined)).toBeUndefined();
  });
});
