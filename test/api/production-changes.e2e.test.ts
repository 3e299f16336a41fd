/**
 * IoP 4's server additions end to end, on a real `conveyor serve` (SQLite store, python3 workers):
 * GET /bindings and DELETE /binding, and validate / diff / plan / apply / rollback of a production
 * definition, including the running production being updated, the refusals (destructive plan, stale
 * plan, nothing to roll back) and an apply killed with SIGKILL around its write (all or nothing).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { OpenApiCheck, type OpenApiDocument } from './support/openapi-check.ts';

const fixture = fileURLToPath(new URL('./fixtures/echo', import.meta.url));
const auth = { authorization: `Basic ${Buffer.from('admin:changes-pw').toString('base64')}` };
const production = 'Api.Test.Production';

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
let openapi: OpenApiCheck;
let packageBody: Array<{ name: string; data: string }>;

async function api(method: string, path: string, body?: unknown): Promise<HttpReply> {
  const reply = await httpCall({ url: server.url, headers: auth }, method, path, body);
  if (reply.status === 200 || reply.status === 409 || reply.status === 404) openapi.check(method, path.split('?')[0] as string, reply.status, reply.json);
  return reply;
}

async function start(): Promise<void> {
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_USER: 'admin', CONVEYOR_ADMIN_PASSWORD: 'changes-pw' });
  const document = await httpCall({ url: server.url, headers: auth }, 'GET', '/api/iop/openapi.json');
  openapi = new OpenApiCheck(document.json as OpenApiDocument);
}

async function stored(): Promise<{ items: Array<{ name: string; settings: Array<{ name: string; value: string }> }> }> {
  return (await api('GET', `/api/iop/export?production=${production}`)).json as never;
}

beforeAll(async () => {
  home = tempDir('conveyor-changes-e2e-');
  await start();
  const entries = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  packageBody = await Promise.all(
    entries.map(async (entry) => ({
      name: relative(fixture, join(entry.parentPath, entry.name)),
      data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
    })),
  );
  const migrated = await api('PUT', '/api/iop/migrate', { package: 'echo', body: packageBody });
  expect(migrated.status, migrated.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

describe('GET /bindings, DELETE /binding', () => {
  it("lists the Python classes in IoP's shape, with the items using them", async () => {
    const reply = await api('GET', '/api/iop/bindings');
    expect(reply.status).toBe(200);
    const echo = (reply.json as Array<Record<string, unknown>>).find((entry) => entry.class === 'Python.EchoOperation');
    expect(echo).toEqual({
      class: 'Python.EchoOperation',
      super: 'IOP.BusinessOperation',
      module: 'echo',
      classname: 'EchoOperation',
      classpaths: expect.stringContaining('echo') as string,
      used: 1,
      used_by: [{ production, item: 'Echo' }],
    });
    const names = (reply.json as Array<{ class: string }>).map((entry) => entry.class);
    expect(names).toEqual([...names].sort());
  });

  it('refuses to unbind a class in use, naming the items; unbinds an unused one', async () => {
    const used = await api('DELETE', '/api/iop/binding?class=Python.EchoOperation');
    expect(used.status).toBe(409);
    expect((used.json as { error: string }).error).toContain(`used by production items ${production}/Echo`);
    expect((await api('DELETE', '/api/iop/binding')).status).toBe(400);
    expect((await api('DELETE', '/api/iop/binding?class=Python.Nope')).status).toBe(404);

    const withoutSilent = await api('POST', '/api/iop/production/apply', {
      definition: { ...(await stored()), items: (await stored()).items.filter((item) => item.name !== 'Silent') },
      allow_destructive: true,
    });
    expect(withoutSilent.status, withoutSilent.text).toBe(200);
    const unused = (await api('GET', '/api/iop/bindings?unused=1')).json as Array<{ class: string }>;
    expect(unused.map((entry) => entry.class)).toContain('Python.SilentOperation');
    expect(unused.map((entry) => entry.class)).not.toContain('Python.EchoOperation');
    const unbound = await api('DELETE', '/api/iop/binding?classname=Python.SilentOperation');
    expect(unbound.json).toEqual({ status: 'unbound', class: 'Python.SilentOperation' });
    expect((await api('GET', '/api/iop/bindings')).json).not.toContainEqual(expect.objectContaining({ class: 'Python.SilentOperation' }));
    // Back to the fixture's classes and production (a migration records no previous definition).
    expect((await api('PUT', '/api/iop/migrate', { package: 'echo', body: packageBody })).status).toBe(200);
    expect(((await api('GET', `/api/iop/production/previous?production=${production}`)).json as { previous: unknown }).previous).toBeNull();
  });
});

describe("IoP 4's target() settings", () => {
  const targets = `from iop import BusinessOperation, target

class Sender(BusinessOperation):
    Output = target()

class Sink(BusinessOperation):
    pass

CLASSES = {'Targets.Sender': Sender, 'Targets.Sink': Sink}
PRODUCTIONS = [{'Targets.Production': {'@Name': 'Targets.Production', 'Item': [
    {'@Name': 'Src', '@ClassName': 'Targets.Sender', 'Setting': {'@Target': 'Host', '@Name': 'Output', '#text': 'Dst'}},
    {'@Name': 'Dst', '@ClassName': 'Targets.Sink'},
]}}]
`;

  it('draws the connection a target() setting names, and validates its target', async () => {
    expect((await api('PUT', '/api/iop/migrate', { package: 'targets', body: [{ name: 'settings.py', data: targets }] })).status).toBe(200);
    const connections = (await api('GET', '/api/iop/connections?production=Targets.Production')).json as {
      items: Array<{ item: string; connections: string[] }>;
    };
    expect(connections.items.find((entry) => entry.item === 'Src')?.connections).toEqual(['Dst']);
    const report = await api('POST', '/api/iop/production/validate', {
      definition: {
        name: 'Targets.Production',
        items: [{ name: 'Src', classname: 'Targets.Sender', settings: [{ target: 'Host', name: 'Output', value: 'Ghost' }] }],
      },
    });
    expect((report.json as { issues: unknown[] }).issues).toEqual([
      expect.objectContaining({ kind: 'route', path: 'items.Src.settings.Host.Output', message: "Target setting references missing production item 'Ghost'." }),
    ]);
  });
});

describe('validate, diff, plan, apply, rollback', () => {
  it('plans a change as safe and destructive operations, without writing anything', async () => {
    const before = await stored();
    const desired = {
      ...before,
      items: [
        { ...before.items[0], settings: [{ target: 'Host', name: 'prefix', value: 'hi:' }] },
        { name: 'Extra', classname: 'Python.EchoOperation', settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Echo,Ghost' }] },
      ],
    };
    const plan = (await api('POST', '/api/iop/production/plan', { definition: desired })).json as Record<string, unknown>;
    expect(plan).toMatchObject({ production, exists: true, has_changes: true });
    expect((plan.operations as Array<Record<string, unknown>>).map((op) => [op.id, op.path, op.risk])).toEqual([
      ['0001-delete_item', 'items.Silent', 'destructive'],
      ['0002-add_item', 'items.Extra', 'safe'],
      ['0003-set_setting', 'items.Echo.settings.Host.prefix', 'safe'],
      ['0004-set_route_setting', 'connections.Extra.TargetConfigNames', 'safe'],
    ]);
    expect(plan.issues).toEqual([expect.objectContaining({ kind: 'route', path: 'items.Extra.settings.Host.TargetConfigNames' })]);
    const diff = (await api('POST', '/api/iop/production/diff', { definition: desired })).json as { changes: unknown[] };
    expect(diff.changes).toHaveLength(4);
    expect(await stored()).toEqual(before);

    const refused = await api('POST', '/api/iop/production/apply', { definition: desired });
    expect(refused.status).toBe(409);
    expect((refused.json as { error: string }).error).toMatch(/1 destructive operation\(s\): 0001-delete_item items.Silent; nothing was applied/);
    expect(await stored()).toEqual(before);
  });

  it('validates classes and routes', async () => {
    const reply = await api('POST', '/api/iop/production/validate', {
      definition: {
        name: production,
        items: [
          { name: 'A', classname: 'Python.Missing' },
          { name: 'B', classname: 'Python.Missing', enabled: false },
        ],
      },
    });
    expect(reply.json).toEqual({
      production,
      has_issues: true,
      issues: [
        expect.objectContaining({ kind: 'class', severity: 'error', path: 'items.A.class_name' }),
        expect.objectContaining({ kind: 'class', severity: 'warning', path: 'items.B.class_name' }),
      ],
    });
    const bad = await api('POST', '/api/iop/production/plan', { definition: { name: production, items: 'none' } });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toMatch(/items must be an array/);
  });

  it("applies a plan (IoP's export form accepted), updates the running production, and rolls back", async () => {
    expect((await api('POST', '/api/iop/start', { production })).status).toBe(200);
    const iopForm = {
      [production]: {
        '@Name': production,
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: 'Production of the API end-to-end tests',
        ActorPoolSize: '1',
        Item: [
          {
            '@Name': 'Echo',
            '@ClassName': 'Python.EchoOperation',
            '@PoolSize': '1',
            '@Enabled': 'true',
            Setting: { '@Target': 'Host', '@Name': 'prefix', '#text': 'new:' },
          },
          { '@Name': 'Silent', '@ClassName': 'Python.SilentOperation', '@PoolSize': '1', '@Enabled': 'true' },
        ],
      },
    };
    const plan = (await api('POST', '/api/iop/production/plan', { definition: iopForm })).json as { source_fingerprint: string; operations: unknown[] };
    expect(plan.operations).toHaveLength(1);
    const applied = await api('POST', '/api/iop/production/apply', { definition: iopForm, source_fingerprint: plan.source_fingerprint });
    expect(applied.json).toMatchObject({ production, applied: 1, destructive: 0, updated_runtime: true, previous_fingerprint: plan.source_fingerprint });
    const test = await api('POST', '/api/iop/test', { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { text: 'x' } });
    expect((test.json as { body: string }).body).toContain('new:');

    const stale = await api('POST', '/api/iop/production/apply', { definition: iopForm, source_fingerprint: plan.source_fingerprint });
    expect(stale.status).toBe(409);
    expect((stale.json as { error: string }).error).toMatch(/changed since the plan was made/);

    const previous = (await api('GET', `/api/iop/production/previous?production=${production}`)).json as { previous: { items: Array<{ settings: unknown }> } };
    expect(previous.previous.items[0]?.settings).toEqual([{ target: 'Host', name: 'prefix', value: 'echo:' }]);
    const rolled = await api('POST', '/api/iop/production/rollback', { production });
    expect(rolled.json).toMatchObject({ production, updated_runtime: true });
    const after = await api('POST', '/api/iop/test', { target: 'Echo', classname: 'lib.messages.EchoRequest', body: { text: 'x' } });
    expect((after.json as { body: string }).body).toContain('echo:');
    expect((await api('POST', '/api/iop/stop', {})).status).toBe(200);
  }, 120_000);

  it('says when there is nothing to roll back, and refuses an unknown production', async () => {
    await api('PUT', '/api/iop/definition', { definition: { name: 'Fresh.Production', items: [] } });
    const none = await api('POST', '/api/iop/production/rollback', { production: 'Fresh.Production' });
    expect(none.status).toBe(404);
    expect((none.json as { error: string }).error).toMatch(/No applied change of production Fresh.Production/);
    expect((await api('POST', '/api/iop/production/rollback', { production: 'Nope' })).status).toBe(404);
  });

  it('keeps the applied definition and the one it replaced together across SIGKILL', async () => {
    const before = await stored();
    const desired = {
      ...before,
      items: before.items.map((item) => (item.name === 'Echo' ? { ...item, settings: [{ target: 'Host', name: 'prefix', value: 'killed:' }] } : item)),
    };
    const applying = httpCall({ url: server.url, headers: auth }, 'POST', '/api/iop/production/apply', { definition: desired }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await server.kill('SIGKILL');
    await applying;
    await start();
    const now = await stored();
    const previous = ((await api('GET', `/api/iop/production/previous?production=${production}`)).json as { previous: unknown }).previous;
    const prefix = now.items.find((item) => item.name === 'Echo')?.settings[0]?.value;
    if (prefix === 'killed:') expect(previous).toEqual(before);
    else expect(now).toEqual(before);
  }, 120_000);
});
