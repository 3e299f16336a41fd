/**
 * Error texts end to end, against a real `conveyor serve`: every failure reads `ERROR #CODE: …` with
 * `code` in the body, and no reply names a folder of the server or carries a stack trace, even when
 * the file system fails (a name too long for it, a file where a folder should be).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;

const settings = { name: 'settings.py', data: 'CLASSES = {}\nPRODUCTIONS = []\n' };

beforeAll(async () => {
  home = tempDir('conveyor-texts-');
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_PASSWORD: 'pw' });
});

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

function expectPrivate(reply: HttpReply): void {
  expect(reply.text).not.toContain(home.path);
  expect(reply.text).not.toMatch(/\n\s+at |Traceback/);
}

describe('error replies', () => {
  it('a spec-route failure starts with ERROR and the stable code, and keeps the code', async () => {
    const reply = await server.local('GET', '/api/iop/export?production=No.Such.Production');
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ error: expect.stringMatching(/^ERROR #PRODUCTION_NOT_FOUND: .*No\.Such\.Production/), code: 'ERR_PRODUCTION_NOT_FOUND' });
  });

  it('a file name too long for the file system is refused without the server path', async () => {
    const reply = await server.local('PUT', '/api/iop/migrate', { package: 'long', body: [settings, { name: `${'x'.repeat(300)}.py`, data: '' }] });
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({
      error: "ERROR #INVALID_INPUT: A name is too long for the server's file system: ENAMETOOLONG: name too long (open)",
      code: 'ERR_INVALID_INPUT',
    });
    expectPrivate(reply);
  });

  it('a remote_folder too long, or that is a file, is refused without the server path', async () => {
    const long = await server.local('PUT', '/api/iop/migrate', { package: 'p', remote_folder: `${home.path}/${'q'.repeat(300)}`, body: [settings] });
    expect((long.json as { error: string }).error).toMatch(/^ERROR #INVALID_INPUT: A name is too long for the server's file system: ENAMETOOLONG/);
    expectPrivate(long);
    const file = await server.local('PUT', '/api/iop/migrate', { package: 'p', remote_folder: `${home.path}/conveyor.db`, body: [settings] });
    expect(file.status).toBe(500);
    expect((file.json as { error: string }).error).toMatch(/^ERROR #[A-Z_]+: .*EEXIST|ENOTDIR/);
    expectPrivate(file);
  });

  it('a path segment longer than the router accepts is a JSON error like the others', async () => {
    const reply = await server.local('GET', `/api/atelier/v1/USER/doc/${'A'.repeat(300)}.cls`);
    expect(reply.status).toBe(414);
    expect(reply.json).toEqual({ error: 'ERROR #INVALID_INPUT: A name in the URL path is longer than this server accepts', code: 'ERR_INVALID_INPUT' });
  });
});

describe('hostile lookup names and XML documents', () => {
  it.each([
    ['..', '%2E%2E'],
    ['a NUL', 'a%00b'],
    ['export', 'export'],
  ])('a lookup table named %s is refused, and nothing is stored', async (_label, segment) => {
    const reply = await server.local('PUT', `/api/iop/lookups/${segment}`, { entries: { k: 'v' } });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toMatch(/^ERROR #INVALID_INPUT: Invalid lookup table name: /);
    expect((await server.local('GET', '/api/iop/lookups')).json).toEqual({ tables: [] });
  });

  it('an import naming a reserved table is refused whole', async () => {
    const xml = '<lookupTable><entry table="Good" key="k">v</entry><entry table="export" key="k">v</entry></lookupTable>';
    const reply = await server.local('POST', '/api/iop/lookups/import', { xml });
    expect((reply.json as { error: string }).error).toMatch(/^ERROR #INVALID_INPUT: lookup table import:1:\d+: "export" is reserved/);
    expect((await server.local('GET', '/api/iop/lookups')).json).toEqual({ tables: [] });
  });

  it('deeply nested XML gets a depth error, not a stack overflow', async () => {
    const deep = `<lookupTable>${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}</lookupTable>`;
    const imported = await server.local('POST', '/api/iop/lookups/import', { xml: deep });
    expect((imported.json as { error: string }).error).toMatch(
      /^ERROR #INVALID_INPUT: lookup table import:1:\d+: XML nested too deeply: more than 256 elements inside one another/,
    );
    const source = `<transform sourceClass="Ens.StringRequest" targetClass="Ens.StringRequest">${'<if condition="1"><true>'.repeat(5_000)}${'</true></if>'.repeat(5_000)}</transform>`;
    const compiled = await server.local('POST', '/api/iop/transforms/run', { source, envelope: '<test><Message/></test>' });
    expect(compiled.text).toContain('XML nested too deeply');
    expect(compiled.text).not.toContain('Maximum call stack');
  });
});

describe('hostile names of other stored things', () => {
  it.each([
    [
      'a transform named ..',
      'PUT',
      '/api/iop/transforms/%2E%2E',
      { source: '<transform sourceClass="Ens.StringRequest" targetClass="Ens.StringRequest"/>' },
      /^ERROR #INVALID_INPUT: Invalid transform name: ".." cannot name a transform/,
    ],
    [
      'a schema in the package ../x',
      'POST',
      '/api/iop/schemas/import',
      { schema: { type: 'object' }, package: '../x', name: 'Ok' },
      /^ERROR #INVALID_INPUT: Invalid schema package name: the schema package name "\.\.\/x" contains/,
    ],
    [
      'a schema named NUL',
      'POST',
      '/api/iop/schemas/import',
      { schema: { type: 'object' }, package: 'p', name: 'a\u0000b' },
      /^ERROR #INVALID_INPUT: Invalid schema name: .* contains a control character/,
    ],
    ['a user named ..', 'PUT', '/api/iop/users/%2E%2E', { password: 'pw', role: 'viewer' }, /^ERROR #INVALID_INPUT: Invalid user name/],
  ])('%s is refused with a clear error', async (_label, method, path, body, text) => {
    const reply = await server.local(method, path, body);
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toMatch(text);
  });

  it('stores none of them', async () => {
    expect((await server.local('GET', '/api/iop/transforms')).json).toEqual({ transforms: [] });
    const users = await server.local('GET', '/api/iop/users');
    expect(users.status).toBe(200);
    expect(users.text).toContain('"admin"');
    expect(users.text).not.toContain('".."');
  });
});
