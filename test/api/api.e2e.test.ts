/**
 * The HTTP API end to end: a real `conveyor serve` process on a fresh home (real SQLite store, real
 * python3 workers), called over real HTTP with Basic credentials, and over the home's Unix socket.
 * Every reply of a documented status is checked against the server's own OpenAPI document.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserDirectory } from '../../src/api/users.ts';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { ConveyorClient, failureOf } from '../../src/client/api-client.ts';
import { createFetchTransport } from '../../src/client/fetch-transport.ts';
import { portalRoutes, specRoutes } from '../../src/client/routes.ts';
import { OpenApiCheck, type OpenApiDocument } from './support/openapi-check.ts';

const fixture = fileURLToPath(new URL('./fixtures/echo', import.meta.url));
const bodyLimit = 3_000_000;
const credentials = { admin: 'admin:e2e-admin-pw', operator: 'op:e2e-op-pw', viewer: 'viewer:e2e-viewer-pw' } as const;
type Who = keyof typeof credentials | { raw: string } | null;

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
let openapi: OpenApiCheck;

function authorization(who: Who): Record<string, string> {
  if (who === null) return {};
  if (typeof who === 'object') return { authorization: who.raw };
  return { authorization: `Basic ${Buffer.from(credentials[who]).toString('base64')}` };
}

/** Calls the API over TCP; replies of documented routes are checked against the OpenAPI document. */
async function api(method: string, path: string, body?: unknown, who: Who = 'admin', template?: string): Promise<HttpReply> {
  const reply = await httpCall({ url: server.url, headers: authorization(who) }, method, path, body);
  const route = template ?? path.split('?')[0]?.replace('/api/iop/v1/', '/api/iop/');
  if (openapi && route && reply.status !== 401 && reply.status !== 403 && reply.status !== 404 && reply.status !== 413 && reply.status !== 400) {
    openapi.check(method, route, reply.status, reply.json ?? reply.text);
  }
  return reply;
}

async function packageFiles(): Promise<Array<{ name: string; data: string }>> {
  const names = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  return Promise.all(
    names.map(async (entry) => ({
      name: relative(fixture, join(entry.parentPath, entry.name)),
      data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
    })),
  );
}

beforeAll(async () => {
  home = tempDir('conveyor-api-e2e-');
  server = await startServerProcess(home.path, [], {
    CONVEYOR_ADMIN_USER: 'admin',
    CONVEYOR_ADMIN_PASSWORD: 'e2e-admin-pw',
    CONVEYOR_BODY_LIMIT: String(bodyLimit),
  });
  const users = await UserDirectory.open(join(home.path, 'users.json'));
  await users.set('op', 'e2e-op-pw', 'operator');
  await users.set('viewer', 'e2e-viewer-pw', 'viewer');
  const document = await httpCall({ url: server.url, headers: authorization('viewer') }, 'GET', '/api/iop/openapi.json');
  expect(document.status).toBe(200);
  openapi = new OpenApiCheck(document.json as OpenApiDocument);
  openapi.check('GET', '/api/iop/openapi.json', 200, document.json);
});

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

describe('authentication and transport errors', () => {
  it('refuses a missing header, empty credentials and a wrong password with 401 + WWW-Authenticate', async () => {
    for (const who of [null, { raw: 'Basic Og==' }, { raw: `Basic ${Buffer.from('admin:wrong').toString('base64')}` }] as Who[]) {
      const reply = await api('GET', '/api/iop/version', undefined, who);
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toMatch(/^Basic /);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(typeof (reply.json as { error: string }).error).toBe('string');
    }
  });

  it('answers GET /version to a user', async () => {
    const reply = await api('GET', '/api/iop/version', undefined, 'viewer');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ description: 'Conveyor production management API' });
  });

  it('refuses a role below the route with 403 JSON', async () => {
    const reply = await api('POST', '/api/iop/start', {}, 'viewer');
    expect(reply.status).toBe(403);
    expect((reply.json as { error: string }).error).toBe('ERROR #FORBIDDEN: User viewer has the role viewer; this operation needs the role operator');
  });

  it('answers 404 JSON, 413 JSON and 400 JSON', async () => {
    const unknown = await api('GET', '/api/iop/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      error: 'ERROR #ROUTE_NOT_FOUND: No route GET /api/iop/nothing-here: see GET /api/iop/openapi.json for the routes',
      code: 'ERR_ROUTE_NOT_FOUND',
    });
    const tooLarge = await api('POST', '/api/iop/stop', { pad: 'x'.repeat(bodyLimit) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json).toEqual({
      error: `ERROR #BODY_TOO_LARGE: The request body is larger than the limit of ${bodyLimit} bytes`,
      code: 'ERR_BODY_TOO_LARGE',
    });
    const notJson = await api('POST', '/api/iop/start', '{"production": oops');
    expect(notJson.status).toBe(400);
    expect((notJson.json as { error: string }).error).toMatch(/^ERROR #BODY_NOT_JSON: The request body is not valid JSON/);
  });

  it('trusts the Unix socket as a local admin, without credentials', async () => {
    const reply = await server.local('GET', '/api/iop/status');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ production: '', status: 'stopped' });
  });
});

describe('migrate', () => {
  it('refuses hostile file names and writes nothing', async () => {
    const files = await packageFiles();
    for (const name of ['/tmp/evil.py', '../evil.py', 'lib/../../evil.py', 'a\u0000b.py']) {
      const reply = await api('PUT', '/api/iop/migrate', { package: 'hostile', body: [...files, { name, data: 'x' }] });
      expect(reply.status, name).toBe(500);
      expect((reply.json as { error: string }).error).toMatch(/absolute|\.\.|NUL/);
    }
    await expect(readdir(join(home.path, 'packages'))).rejects.toMatchObject({ code: 'ENOENT' });
    const outside = await api('PUT', '/api/iop/migrate', { package: 'p', remote_folder: '/etc', body: files });
    expect((outside.json as { error: string }).error).toMatch(/outside the folders this server may write to/);
  });

  it('uploads the package, runs its settings.py migration and answers 200 with an empty body', async () => {
    const reply = await api('PUT', '/api/iop/migrate?namespace=USER', { namespace: 'USER', package: 'echo', remote_folder: '', body: await packageFiles() });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).toBe('');
    expect((await readdir(join(home.path, 'packages', 'USER', 'echo'), { recursive: true })).sort()).toEqual([
      'echo.py',
      'lib',
      'lib/__init__.py',
      'lib/messages.py',
      'settings.py',
    ]);
  });
});

describe('migrate failures', () => {
  it('a failing settings.py answers 500 with the Python error and leaves the previous package in place', async () => {
    const files = (await packageFiles()).map((file) =>
      file.name === 'settings.py' ? { ...file, data: "raise ValueError('broken settings on purpose')\n" } : file,
    );
    const reply = await api('PUT', '/api/iop/migrate', { package: 'echo', body: [...files, { name: 'extra.py', data: '' }] });
    expect(reply.status).toBe(500);
    expect((reply.json as { error: string }).error).toMatch(/broken settings on purpose/);
    const kept = await readFile(join(home.path, 'packages', 'USER', 'echo', 'settings.py'), 'utf8');
    expect(kept).toContain('Api.Test.Production');
    const names = (await readdir(join(home.path, 'packages', 'USER', 'echo'))).filter((name) => name !== '__pycache__');
    expect(names.sort()).toEqual(['echo.py', 'lib', 'settings.py']);
  });
});

describe('production routes', () => {
  it('lists the migrated production with typed fields', async () => {
    const reply = await api('GET', '/api/iop/list', undefined, 'viewer');
    expect(reply.json).toMatchObject({ 'Api.Test.Production': { Status: 'Stopped', AutoStart: false } });
  });

  it('sets and reads the default production', async () => {
    expect((await api('PUT', '/api/iop/default', { production: 'Api.Test.Production' })).json).toEqual({ production: 'Api.Test.Production' });
    expect((await api('GET', '/api/iop/default', undefined, 'viewer')).json).toEqual({ production: 'Api.Test.Production' });
  });

  it('exports the definition in the spec shape', async () => {
    const reply = await api('GET', '/api/iop/export?production=Api.Test.Production', undefined, 'viewer');
    expect(reply.json).toMatchObject({
      name: 'Api.Test.Production',
      description: 'Production of the API end-to-end tests',
      test_enabled: true,
      actor_pool_size: 1,
      items: [
        { name: 'Echo', classname: 'Python.EchoOperation', pool_size: 1, enabled: true, settings: [{ target: 'Host', name: 'prefix', value: 'echo:' }] },
        { name: 'Silent', classname: 'Python.SilentOperation', enabled: true },
      ],
    });
  });

  it('refuses a misspelt field or a wrong type with a 400 naming it, and starts nothing', async () => {
    const misspelt = await api('POST', '/api/iop/start', { prodution: 'Api.Test.Production' }, 'operator');
    expect(misspelt.status).toBe(400);
    expect(misspelt.headers['content-type']).toMatch(/^application\/json/);
    expect(misspelt.json).toEqual({
      error: 'ERROR #INVALID_INPUT: Unknown field prodution in the body of POST /api/iop/start (accepted: production, namespace)',
      code: 'ERR_INVALID_INPUT',
    });
    const wrongType = await api('POST', '/api/iop/start', { production: 7 }, 'operator');
    expect(wrongType.status).toBe(400);
    expect((wrongType.json as { error: string }).error).toMatch(/production must be a string, not a number in the body of POST \/api\/iop\/start$/);
    const unknownQuery = await api('GET', '/api/iop/log?tpo=3', undefined, 'viewer');
    expect(unknownQuery.status).toBe(400);
    expect((unknownQuery.json as { error: string }).error).toMatch(/Unknown field tpo in the query of GET \/api\/iop\/log/);
    expect((await api('GET', '/api/iop/status', undefined, 'viewer')).json).toMatchObject({ status: 'stopped' });
  });

  it('starts the default production with an empty body', async () => {
    const reply = await httpCall(
      { url: server.url, headers: { ...authorization('operator'), 'content-type': 'application/json' } },
      'POST',
      '/api/iop/start',
      '',
    );
    expect(reply.status, reply.text).toBe(200);
    openapi.check('POST', '/api/iop/start', 200, reply.json);
    expect(reply.json).toEqual({ status: 'started', production: 'Api.Test.Production' });
    expect((await api('GET', '/api/iop/status', undefined, 'viewer')).json).toEqual({ production: 'Api.Test.Production', status: 'running' });
  });

  it('POST /test round-trips through a Python operation', async () => {
    const reply = await api('POST', '/api/iop/test', { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { text: 'hello' } }, 'operator');
    expect(reply.status, reply.text).toBe(200);
    const answer = reply.json as { classname: string; body: string; truncated: boolean };
    expect(answer.classname).toBe('lib.messages.EchoResponse');
    expect(JSON.parse(answer.body)).toMatchObject({ text: 'echo:hello' });
    expect(answer.truncated).toBe(false);
  });

  it('POST /test with a string body and restart false gives the same answer', async () => {
    const reply = await api(
      'POST',
      '/api/iop/test',
      { target: 'Echo', classname: 'lib.messages.EchoRequest', body: '{"text": "hello"}', restart: false },
      'operator',
    );
    expect(JSON.parse((reply.json as { body: string }).body)).toMatchObject({ text: 'echo:hello' });
  });

  it('POST /test cuts a response over 1,000,000 characters and flags it', async () => {
    const reply = await api(
      'POST',
      '/api/iop/test',
      { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { size: 1_100_000 }, restart: false },
      'operator',
    );
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
    const answer = reply.json as { classname: string; body: string; truncated: boolean };
    expect(answer.truncated).toBe(true);
    expect(answer.body).toHaveLength(1_000_000);
    expect(answer.body.startsWith('{"text":"xxxx') || answer.body.startsWith('{"text": "xxxx')).toBe(true);
  });

  it('POST /test of an item that answers nothing gives empty classname and body', async () => {
    const reply = await api('POST', '/api/iop/test', { target: 'Silent' }, 'operator');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({ classname: '', body: '', truncated: false });
  });

  it('POST /test takes what the real IoP client sends: namespace in the query, body null, restart true', async () => {
    const reply = await api('POST', '/api/iop/test?namespace=USER', { target: 'Silent', body: null, restart: true }, 'operator');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({ classname: '', body: '', truncated: false });
  });

  it('POST /test with an unknown field is a 400 and calls nothing', async () => {
    const before = (await api('GET', '/api/iop/log?top=1', undefined, 'viewer')).json as Array<{ id: number }>;
    const reply = await api('POST', '/api/iop/test', { target: 'Echo', classname: 'lib.messages.EchoRequest', bdoy: { text: 'lost' } }, 'operator');
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toMatch(/Unknown field bdoy in the body of POST \/api\/iop\/test/);
    const after = (await api('GET', '/api/iop/log?top=1', undefined, 'viewer')).json as Array<{ id: number }>;
    expect(after[0]?.id).toBe(before[0]?.id);
  });

  it('POST /test of an unknown item is a 500 {error}', async () => {
    const reply = await api('POST', '/api/iop/test', { target: 'Nobody' }, 'operator');
    expect(reply.status).toBe(500);
    expect((reply.json as { error: string }).error).toMatch(/Nobody/);
  });

  it('the test calls show in the log: top newest first, since_id ascending', async () => {
    const top = await eventually(async () => {
      const reply = await api('GET', '/api/iop/log?top=5', undefined, 'viewer');
      const entries = reply.json as Array<{ id: number; text: string }>;
      return entries.some((entry) => entry.text.includes('answering nothing')) ? entries : undefined;
    }, 'the Silent log entry');
    expect(top.length).toBeLessThanOrEqual(5);
    const ids = top.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const oldest = ids.at(-1) ?? 0;
    const since = (await api('GET', `/api/iop/log?since_id=${oldest}`, undefined, 'viewer')).json as Array<{ id: number }>;
    const sinceIds = since.map((entry) => entry.id);
    expect(sinceIds).toEqual([...sinceIds].sort((a, b) => a - b));
    expect(sinceIds.slice(0, ids.length - 1)).toEqual(ids.slice(0, -1).reverse());
    expect(sinceIds.every((id) => id > oldest)).toBe(true);
    const defaultTop = (await api('GET', '/api/iop/log', undefined, 'viewer')).json as unknown[];
    expect(defaultTop.length).toBeLessThanOrEqual(10);
  });

  it('component restart, queues and connections answer the IoP 4 shapes', async () => {
    expect((await api('POST', '/api/iop/component/restart', { component: 'Echo' }, 'operator')).json).toEqual({ status: 'restarted', component: 'Echo' });
    expect((await api('POST', '/api/iop/component/stop', { component: 'Silent' }, 'operator')).json).toEqual({ status: 'stopped', component: 'Silent' });
    expect((await api('POST', '/api/iop/component/start', { item: 'Silent' }, 'operator')).json).toEqual({ status: 'started', component: 'Silent' });
    const queues = (await api('GET', '/api/iop/queues', undefined, 'viewer')).json as { production: string; items: Array<{ item: string }> };
    expect(queues.production).toBe('Api.Test.Production');
    expect(queues.items.map((item) => item.item)).toEqual(['Echo', 'Silent']);
    const connections = (await api('GET', '/api/iop/connections', undefined, 'viewer')).json as {
      items: Array<{ item: string; kind: string; iop?: number; module?: string }>;
    };
    expect(connections.items[0]).toMatchObject({ item: 'Echo', kind: 'operation', iop: 1, module: 'echo' });
  });

  it('GET /metrics counts the messages the items handled', async () => {
    const reply = await httpCall({ url: server.url, headers: authorization('viewer') }, 'GET', '/metrics');
    expect(reply.status).toBe(200);
    openapi.check('GET', '/metrics', 200, reply.text);
    const processed = /conveyor_messages_processed_total\{namespace="USER",item="Echo"\} (\d+)/.exec(reply.text);
    expect(Number(processed?.[1])).toBeGreaterThanOrEqual(3);
    expect(reply.text).toContain('conveyor_production_running{namespace="USER",production="Api.Test.Production"} 1');
  });

  it('update and restart answer their status; the /v1 alias answers the same routes', async () => {
    expect((await api('POST', '/api/iop/update', undefined, 'operator')).json).toEqual({ status: 'updated' });
    expect((await api('POST', '/api/iop/v1/restart', {}, 'operator')).json).toEqual({ status: 'restarted' });
    expect((await api('GET', '/api/iop/v1/status', undefined, 'viewer')).json).toEqual({ production: 'Api.Test.Production', status: 'running' });
  });

  it('takes the namespace from the body over the query, and refuses an unknown one', async () => {
    const unknownInBody = await api('POST', '/api/iop/stop?namespace=USER', { namespace: 'NOPE' }, 'operator');
    expect(unknownInBody.status).toBe(500);
    expect((unknownInBody.json as { error: string }).error).toMatch(/NOPE/);
    const unknownInQuery = await api('GET', '/api/iop/status?namespace=NOPE', undefined, 'viewer');
    expect(unknownInQuery.status).toBe(500);
    expect((await api('GET', '/api/iop/status?namespace=USER', undefined, 'viewer')).json).toMatchObject({ status: 'running' });
    const bodyWins = await api('POST', '/api/iop/stop?namespace=NOPE', { namespace: 'USER' }, 'operator');
    expect(bodyWins.json).toEqual({ status: 'stopped' });
  });

  it('stop of a stopped production is a 500 {error}; kill answers killed', async () => {
    const again = await api('POST', '/api/iop/stop', undefined, 'operator');
    expect(again.status).toBe(500);
    expect(typeof (again.json as { error: string }).error).toBe('string');
    const inputWhileStopped = await api('POST', '/api/iop/component/input', { service: 'Echo' }, 'operator');
    expect(inputWhileStopped.status).toBe(409);
    expect((inputWhileStopped.json as { error: string }).error).toContain('No production is running');
    expect((await api('POST', '/api/iop/start', { production: 'Api.Test.Production' }, 'operator')).json).toEqual({
      status: 'started',
      production: 'Api.Test.Production',
    });
    expect((await api('POST', '/api/iop/kill', {}, 'operator')).json).toEqual({ status: 'killed' });
    expect((await api('GET', '/api/iop/status', undefined, 'viewer')).json).toMatchObject({ status: 'stopped' });
  });
});

describe('class-document API', () => {
  it('stores documents and compiles them, reporting what was done with each', async () => {
    const put = await api(
      'PUT',
      '/api/atelier/v1/USER/doc/IOP.Utils.cls?ignoreConflict=1',
      { enc: false, content: ['Class IOP.Utils Extends %RegisteredObject', '{', '}'] },
      'admin',
      '/api/atelier/v1/{namespace}/doc/{name}',
    );
    expect(put.status).toBe(201);
    const compiled = await api(
      'POST',
      '/api/atelier/v1/USER/action/compile?flags=cuk',
      ['IOP.Utils.cls'],
      'admin',
      '/api/atelier/v1/{namespace}/action/compile',
    );
    expect(compiled.status).toBe(200);
    expect(compiled.json).toMatchObject({
      status: { errors: [] },
      console: expect.arrayContaining(['IOP.Utils.cls: kept; Conveyor implements this class natively, nothing to compile']),
    });
    const back = await api('GET', '/api/atelier/v1/USER/doc/IOP.Utils.cls', undefined, 'viewer', '/api/atelier/v1/{namespace}/doc/{name}');
    expect((back.json as { result: { content: string[] } }).result.content[0]).toBe('Class IOP.Utils Extends %RegisteredObject');
  });
});

describe('users', () => {
  it('an admin manages users through the API; a new user can sign in at once', async () => {
    expect((await api('PUT', '/api/iop/users/grace', { password: 'pw-grace', role: 'viewer' }, 'admin', '/api/iop/users/{name}')).json).toEqual({
      name: 'grace',
      role: 'viewer',
      disabled: false,
    });
    expect((await api('GET', '/api/iop/users', undefined, 'admin')).json).toEqual(
      expect.arrayContaining([
        { name: 'grace', role: 'viewer', disabled: false },
        { name: 'admin', role: 'admin', disabled: false },
      ]),
    );
    const grace = { raw: `Basic ${Buffer.from('grace:pw-grace').toString('base64')}` };
    expect((await api('GET', '/api/iop/status', undefined, grace)).status).toBe(200);
    expect((await api('POST', '/api/iop/users/grace/role', { role: 'operator' }, 'admin', '/api/iop/users/{name}/role')).status).toBe(200);
    expect((await api('POST', '/api/iop/users/grace/password', { password: 'pw-grace-2' }, 'admin', '/api/iop/users/{name}/password')).status).toBe(200);
    expect((await api('GET', '/api/iop/status', undefined, grace)).status).toBe(401);
    const renewed = { raw: `Basic ${Buffer.from('grace:pw-grace-2').toString('base64')}` };
    expect((await api('POST', '/api/iop/users/grace/disable', {}, 'admin', '/api/iop/users/{name}/disable')).status).toBe(200);
    expect((await api('GET', '/api/iop/status', undefined, renewed)).status).toBe(401);
    expect((await api('POST', '/api/iop/users/grace/enable', {}, 'admin', '/api/iop/users/{name}/enable')).status).toBe(200);
    expect((await api('GET', '/api/iop/status', undefined, renewed)).status).toBe(200);
    expect((await api('DELETE', '/api/iop/users/grace', undefined, 'admin', '/api/iop/users/{name}')).json).toEqual({ status: 'removed', name: 'grace' });
  });
});

describe('beyond-spec routes of the portal, DTL and cluster', () => {
  it('answers the nodes, user, namespaces, classes, items and definition routes', async () => {
    const nodes = (await api('GET', '/api/iop/nodes', undefined, 'viewer')).json as { nodes: Array<{ self: boolean; pid: number }> };
    expect(nodes.nodes).toEqual([expect.objectContaining({ self: true, pid: server.child.pid })]);
    expect((await api('GET', '/api/iop/whoami', undefined, 'viewer')).json).toMatchObject({ user: 'viewer', role: 'viewer' });
    expect((await api('GET', '/api/iop/namespaces', undefined, 'viewer')).json).toEqual({ namespaces: ['USER'] });
    const classes = JSON.stringify((await api('GET', '/api/iop/classes', undefined, 'viewer')).json);
    expect(classes).toContain('Python.EchoOperation');
    const definition = (await api('GET', '/api/iop/definition?production=Api.Test.Production', undefined, 'viewer')).json as { name: string; items: unknown[] };
    expect(definition.name).toBe('Api.Test.Production');
    expect((await api('PUT', '/api/iop/definition', { definition }, 'admin')).json).toEqual({
      production: 'Api.Test.Production',
      items: definition.items.length,
      warnings: [],
    });
    expect(JSON.stringify((await api('GET', '/api/iop/items?production=Api.Test.Production', undefined, 'viewer')).json)).toContain('Echo');
  });

  it('finds the messages of a test run, its session trace and log, and resends a request', async () => {
    expect((await api('POST', '/api/iop/start', { production: 'Api.Test.Production' }, 'operator')).status).toBe(200);
    const run = (await api('POST', '/api/iop/test-run', { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { text: 'traced' } }, 'operator'))
      .json as { session_id: number; body: string };
    expect(JSON.parse(run.body)).toMatchObject({ text: 'echo:traced' });
    const found = (await api('GET', '/api/iop/messages?target=Echo&limit=5', undefined, 'viewer')).json as {
      messages: Array<{ id: number; sessionId: number }>;
    };
    const request = found.messages.find((m) => m.sessionId === run.session_id);
    expect(request).toBeDefined();
    const message = (await api('GET', `/api/iop/messages/${request!.id}`, undefined, 'viewer', '/api/iop/messages/{id}')).json as { body: { data: string } };
    expect(message.body.data).toContain('traced');
    const trace = (await api('GET', `/api/iop/sessions/${run.session_id}`, undefined, 'viewer', '/api/iop/sessions/{id}')).json as { messages: unknown[] };
    expect(trace.messages).toHaveLength(2);
    const resent = (await api('POST', `/api/iop/messages/${request!.id}/resend`, {}, 'operator', '/api/iop/messages/{id}/resend')).json as {
      id: number;
      target: string;
    };
    expect(resent).toMatchObject({ target: 'Echo' });
    expect(resent.id).toBeGreaterThan(request!.id);
    const search = (await api('GET', '/api/iop/log/search?type=Info&limit=5', undefined, 'viewer')).json as unknown[];
    expect(JSON.stringify(search)).toContain('Info');
    expect((await api('POST', '/api/iop/stop', {}, 'operator')).status).toBe(200);
  });

  it('stores, compiles, runs and deletes transforms, schemas and lookup tables', async () => {
    const source = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='e2e.In' targetDocType='e2e.Out' create='new' language='objectscript'>
<assign value='..Lookup("Codes",source.{code},"?")' property='target.{label}' action='set'/>
</transform>`;
    expect(
      (
        await api(
          'POST',
          '/api/iop/schemas/import',
          { package: 'e2e', name: 'e2e.Out', schema: { type: 'object', properties: { label: { type: 'string' } } } },
          'admin',
        )
      ).status,
    ).toBe(200);
    expect(JSON.stringify((await api('GET', '/api/iop/schemas', undefined, 'viewer')).json)).toContain('e2e.Out');
    expect((await api('GET', '/api/iop/schemas/e2e.Out', undefined, 'viewer', '/api/iop/schemas/{name}')).json).toMatchObject({
      name: 'e2e.Out',
      category: 'e2e',
    });
    expect(JSON.stringify((await api('GET', '/api/iop/schemas/e2e.Out/tree', undefined, 'viewer', '/api/iop/schemas/{name}/tree')).json)).toContain('label');
    expect((await api('PUT', '/api/iop/lookups/Codes', { entries: { a: 'Alpha' } }, 'operator', '/api/iop/lookups/{name}')).status).toBe(200);
    expect((await api('GET', '/api/iop/lookups', undefined, 'viewer')).json).toEqual({ tables: ['Codes'] });
    expect((await api('GET', '/api/iop/lookups/Codes', undefined, 'viewer', '/api/iop/lookups/{name}')).json).toEqual({
      table: 'Codes',
      entries: { a: 'Alpha' },
    });
    const exported = (await api('GET', '/api/iop/lookups/export', undefined, 'viewer')).json as { xml: string };
    expect((await api('POST', '/api/iop/lookups/import', { xml: exported.xml.replace('Alpha', 'Alef') }, 'operator')).json).toEqual({
      tables: ['Codes'],
      entries: 1,
    });
    expect((await api('POST', '/api/iop/transforms/compile', { source }, 'viewer')).json).toMatchObject({ ok: true });
    expect((await api('PUT', '/api/iop/transforms/E2E.Label', { source }, 'operator', '/api/iop/transforms/{name}')).json).toMatchObject({
      name: 'E2E.Label',
      version: 1,
    });
    expect(JSON.stringify((await api('GET', '/api/iop/transforms', undefined, 'viewer')).json)).toContain('E2E.Label');
    expect((await api('GET', '/api/iop/transforms/E2E.Label', undefined, 'viewer', '/api/iop/transforms/{name}')).json).toMatchObject({
      name: 'E2E.Label',
      version: 1,
    });
    expect((await api('POST', '/api/iop/transforms/run', { name: 'E2E.Label', json: { code: 'a' } }, 'viewer')).json).toMatchObject({
      status: 'ok',
      target: { label: 'Alef' },
    });
    expect((await api('DELETE', '/api/iop/transforms/E2E.Label', undefined, 'operator', '/api/iop/transforms/{name}')).json).toEqual({ deleted: 'E2E.Label' });
    expect((await api('DELETE', '/api/iop/lookups/Codes', undefined, 'operator', '/api/iop/lookups/{name}')).json).toEqual({ deleted: 'Codes' });
    expect((await api('DELETE', '/api/iop/schemas/e2e.Out', undefined, 'operator', '/api/iop/schemas/{name}')).json).toEqual({ deleted: 'e2e.Out' });
  });
});

describe('operations: monitor, alerts, search, controls, retention (each behaviour has its own suite in test/api)', () => {
  it('answers every operations route as documented', async () => {
    expect((await api('POST', '/api/iop/start', { production: 'Api.Test.Production' }, 'operator')).status).toBe(200);
    const run = (await api('POST', '/api/iop/test-run', { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { text: 'ops' } }, 'operator')).json as {
      session_id: number;
    };
    const monitor = (await api('GET', '/api/iop/monitor', undefined, 'viewer')).json as { production: string; items: Array<{ name: string }> };
    expect(monitor.production).toBe('Api.Test.Production');
    expect(monitor.items.map((item) => item.name)).toEqual(expect.arrayContaining(['Echo', 'Silent']));
    expect((await api('GET', '/api/iop/alerts?state=open', undefined, 'viewer')).json).toEqual({ alerts: [] });
    expect((await api('POST', '/api/iop/alerts/acknowledge', { ids: [1] }, 'operator')).json).toEqual({ acknowledged: 0 });

    const hits = (await api('GET', `/api/iop/messages/search?session=${run.session_id}&kind=request`, undefined, 'viewer')).json as {
      messages: Array<{ id: number; target: string }>;
    };
    const request = hits.messages.find((message) => message.target === 'Echo')!;
    expect(request).toBeDefined();
    const csv = await api('GET', `/api/iop/messages/export/csv?session=${run.session_id}`, undefined, 'viewer');
    expect(csv.text.split('\n')[0]).toContain('id');
    const ndjson = await api('GET', `/api/iop/messages/export/ndjson?session=${run.session_id}`, undefined, 'viewer');
    expect(ndjson.text.trim().split('\n').length).toBeGreaterThan(0);

    expect(((await api('GET', '/api/iop/controls/queues', undefined, 'viewer')).json as { items: unknown[] }).items.length).toBe(2);
    const suspendPath = '/api/iop/controls/queues/{item}/suspend';
    expect((await api('POST', '/api/iop/controls/queues/Silent/suspend', {}, 'operator', suspendPath)).json).toMatchObject({ item: 'Silent', suspended: true });
    const resumePath = '/api/iop/controls/queues/{item}/resume';
    expect((await api('POST', '/api/iop/controls/queues/Silent/resume', {}, 'operator', resumePath)).json).toMatchObject({ item: 'Silent', suspended: false });
    const detail = (await api('GET', `/api/iop/controls/messages/${request.id}`, undefined, 'viewer', '/api/iop/controls/messages/{id}')).json as {
      suspended: boolean;
    };
    expect(detail.suspended).toBe(false);
    expect((await api('GET', '/api/iop/controls/suspended', undefined, 'viewer')).json).toEqual({ messages: [], next_before: null });
    // A finished request is neither queued (abort) nor in error (discard): each says so and nothing changes.
    expect((await api('POST', '/api/iop/controls/messages/abort', { ids: [request.id] }, 'operator')).status).toBe(409);
    expect((await api('POST', '/api/iop/controls/messages/discard', { ids: [request.id] }, 'operator')).status).toBe(409);
    const resent = (await api('POST', '/api/iop/controls/messages/resend', { ids: [request.id] }, 'operator')).json as { results: Array<{ target: string }> };
    expect(resent.results).toEqual([expect.objectContaining({ id: request.id, target: 'Echo' })]);
    const edited = await api(
      'POST',
      `/api/iop/controls/messages/${request.id}/edit-resend`,
      { body: { text: 'edited' } },
      'operator',
      '/api/iop/controls/messages/{id}/edit-resend',
    );
    expect(edited.json).toMatchObject({ id: request.id, target: 'Echo' });
    expect((await api('POST', '/api/iop/stop', {}, 'operator')).status).toBe(200);

    expect((await api('PUT', '/api/iop/retention', { messageDays: 30, logDays: 30, maxStoreBytes: null })).status).toBe(200);
    const retention = (await api('GET', '/api/iop/retention', undefined, 'viewer')).json as { policy: { messageDays: number } };
    expect(retention.policy).toMatchObject({ messageDays: 30 });
    const dryRun = (await api('POST', '/api/iop/messages/purge', { keepDays: 30, dryRun: true })).json as { purged: number; dryRun: boolean };
    expect(dryRun).toMatchObject({ purged: 0, dryRun: true });
  });

  it('stores, lists, compiles, tests and deletes a routing rule class, and reads the rule log', async () => {
    const source = [
      'Class Api.Rules Extends Ens.Rule.Definition',
      '{',
      'Parameter RuleAssistClass = "EnsLib.MsgRouter.RuleAssist";',
      'XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]',
      '{',
      '<ruleDefinition alias="" context="EnsLib.MsgRouter.RoutingEngine">',
      '<ruleSet name="Api" effectiveBegin="" effectiveEnd="">',
      '<rule name="Echo them"><when condition="Document.text=&quot;x&quot;"><send transform="" target="Echo"/><return/></when></rule>',
      '</ruleSet>',
      '</ruleDefinition>',
      '}',
      '}',
    ].join('\n');
    expect((await api('POST', '/api/iop/rules/compile', { source }, 'viewer')).status).toBe(200);
    expect((await api('PUT', '/api/iop/rules/Api.Rules', { source }, 'operator', '/api/iop/rules/{name}')).json).toMatchObject({
      name: 'Api.Rules',
      version: 1,
    });
    expect(JSON.stringify((await api('GET', '/api/iop/rules', undefined, 'viewer')).json)).toContain('Api.Rules');
    expect((await api('GET', '/api/iop/rules/Api.Rules', undefined, 'viewer', '/api/iop/rules/{name}')).json).toMatchObject({ name: 'Api.Rules' });
    const decided = (
      await api('POST', '/api/iop/rules/test', { name: 'Api.Rules', classname: 'lib.messages.EchoRequest', json: { text: 'x' }, from: 'Svc' }, 'viewer')
    ).json as { returnValue: string };
    expect(decided.returnValue).toBe('send:Echo');
    expect((await api('GET', '/api/iop/rules/log?rule=Api.Rules', undefined, 'viewer')).json).toEqual({ entries: [] });
    expect((await api('DELETE', '/api/iop/rules/Api.Rules', undefined, 'operator', '/api/iop/rules/{name}')).status).toBe(200);
  });
});

describe("the portal's way in: src/client over the browser's fetch", () => {
  it('signs in, reads items and the definition, saves it back and searches messages, typed by the declarations', async () => {
    const client = new ConveyorClient(createFetchTransport({ baseUrl: server.url, credentials: { username: 'admin', password: 'e2e-admin-pw' } }), {
      namespace: 'USER',
    });
    expect(await client.call(portalRoutes.whoami)).toEqual({ user: 'admin', role: 'admin', namespaces: ['USER'] });
    const items = await client.call(portalRoutes.items, { query: { production: 'Api.Test.Production' } });
    expect(items.items.map((item) => item.name)).toEqual(['Echo', 'Silent']);
    const definition = await client.call(portalRoutes.getDefinition, { query: { production: 'Api.Test.Production' } });
    expect(await client.call(portalRoutes.putDefinition, { body: { definition } })).toEqual({ production: 'Api.Test.Production', items: 2, warnings: [] });
    const page = await client.call(portalRoutes.searchMessages, { query: { target: 'Echo', status: 'completed', limit: 2 } });
    expect(page.messages.length).toBeGreaterThan(0);
    expect(page.messages.every((message) => message.target === 'Echo' && message.status === 'completed')).toBe(true);
    const refused = await client.call(specRoutes.start, { body: { prodution: 'X' } as never }).catch((error: unknown) => error);
    expect(failureOf(refused)).toMatchObject({ status: 400, code: 'ERR_INVALID_INPUT' });
  });
});

describe("IoP 4's bindings and production changes (test/api/production-changes.e2e.test.ts has their behaviour)", () => {
  it('answer as documented', async () => {
    const bindings = await api('GET', '/api/iop/bindings', undefined, 'viewer');
    expect(bindings.json).toContainEqual(expect.objectContaining({ class: 'Python.EchoOperation', used: 1 }));
    expect((await api('DELETE', '/api/iop/binding?class=Python.EchoOperation')).status).toBe(409);
    const stored = (await api('GET', '/api/iop/export?production=Api.Test.Production', undefined, 'viewer')).json;
    for (const action of ['validate', 'diff', 'plan']) {
      expect((await api('POST', `/api/iop/production/${action}`, { definition: stored }, 'viewer')).status).toBe(200);
    }
    const applied = await api('POST', '/api/iop/production/apply', { definition: stored });
    expect(applied.json).toMatchObject({ production: 'Api.Test.Production', applied: 0 });
    expect(
      ((await api('GET', '/api/iop/production/previous?production=Api.Test.Production', undefined, 'viewer')).json as { previous: unknown }).previous,
    ).toEqual(stored);
    expect((await api('POST', '/api/iop/production/rollback', { production: 'Api.Test.Production' })).json).toMatchObject({ applied: 0 });
  });
});

describe('the OpenAPI document', () => {
  it('was checked against a real reply of every route', () => {
    expect(openapi.unchecked()).toEqual([]);
  });
});
