/**
 * POST /schemas/import with a server `path`, on a real server: only files in `<home>/imports` and the
 * allowed roots are read, never the home's own files (users.json) nor anything else on the server, and
 * no refusal or parse error carries what a file holds.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('schema import from a server path', () => {
  const dir = tempDir('conveyor-schema-import-');
  const home = join(dir.path, 'home');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(home);
    await mkdir(join(home, 'imports'), { recursive: true });
    await mkdir(join(dir.path, 'outside'));
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  const importFrom = (path: string, name: string) => server.local('POST', '/api/iop/schemas/import', { path, package: 'x', name });

  it("imports a schema file from the home's imports folder", async () => {
    await writeFile(join(home, 'imports', 'person.json'), JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }));
    const reply = await importFrom(join(home, 'imports', 'person.json'), 'x.Person');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({ imported: 'x.Person', package: 'x' });
    expect((await server.local('GET', '/api/iop/schemas/x.Person')).json).toMatchObject({ name: 'x.Person', schema: { type: 'object' } });
  });

  it("refuses the home's users file, /etc/passwd and a file outside the roots, stores nothing and shows none of their text", async () => {
    await writeFile(join(dir.path, 'outside', 'plain.json'), JSON.stringify({ type: 'object', title: 'outside-title' }));
    const paths = [join(home, 'users.json'), join(home, 'imports', '..', 'users.json'), '/etc/passwd', join(dir.path, 'outside', 'plain.json')];
    for (const [index, path] of paths.entries()) {
      const reply = await importFrom(path, `leak${index}`);
      expect(reply.status, path).toBe(400);
      expect((reply.json as { error: string }).error, path).toMatch(/^ERROR #UNSAFE_PATH: path ".*" is outside the folders the server reads schema files from/);
      expect(reply.text).not.toMatch(/salt|hash|root:x|outside-title/);
      expect((await server.local('GET', `/api/iop/schemas/leak${index}`)).status).toBe(404);
    }
  });

  it('refuses a file in the imports folder that is not JSON with the position only', async () => {
    await writeFile(join(home, 'imports', 'notes.txt'), 'root:x:0:0:root:/root:/bin/bash\n');
    const reply = await importFrom(join(home, 'imports', 'notes.txt'), 'x.Notes');
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toMatch(/is not valid JSON \(at line 1, column 1\)$/);
    expect(reply.text).not.toMatch(/root:x|'r'/);
  });
});
