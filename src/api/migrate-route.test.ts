import { mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorError } from '../core/errors.ts';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
let outside: string;
beforeAll(async () => {
  h = await createHarness();
  outside = await mkdtemp(join(tmpdir(), 'conveyor-outside-'));
});
afterAll(async () => {
  await h.close();
  await rm(outside, { recursive: true, force: true });
});
beforeEach(async () => {
  h.engine.migrateFailure = null;
  h.engine.calls.length = 0;
  await rm(join(h.home, 'packages'), { recursive: true, force: true });
});

const settings = { name: 'settings.py', data: 'CLASSES = {}\nPRODUCTIONS = []\n' };

async function migrate(payload: unknown, query = '') {
  const response = await h.app.inject({ method: 'PUT', url: `/api/iop/migrate${query}`, headers: h.auth('admin'), payload: payload as object });
  return { status: response.statusCode, body: response.body, json: () => response.json() };
}

function uploadOf(call: { args: unknown[] } | undefined): { folder: string; settingsFile: string } {
  return call?.args[0] as { folder: string; settingsFile: string };
}

async function tree(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder, { recursive: true })).sort();
  } catch {
    return [];
  }
}

describe('PUT /migrate', () => {
  // Writing, validating and switching the package in is the engine's (src/engine/migration/package-swap.test.ts
  // holds it on a real store); the route checks the request and hands the checked upload over.
  it('hands the checked files to the engine for the namespace package folder and answers 200 empty', async () => {
    const files = [settings, { name: 'bo/ops.py', data: 'print("é")\n' }];
    const r = await migrate({ package: 'python', body: files });
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    const folder = await realpath(join(h.home, 'packages', 'USER'));
    expect(h.engine.lastCall('migratePackage')).toEqual({
      method: 'migratePackage',
      namespace: 'USER',
      args: [{ folder, packageName: 'python', files, settingsFile: 'settings.py' }, { strictProductionValidation: false }],
    });
    expect(await tree(folder)).toEqual([]);
  });

  it("passes IoP's strict_production_validation on to the migration (the engine refuses a production with validation issues)", async () => {
    expect((await migrate({ package: 'python', body: [settings], strict_production_validation: true })).status).toBe(200);
    expect(h.engine.lastCall('migratePackage')?.args[1]).toEqual({ strictProductionValidation: true });
    expect((await migrate({ package: 'python', body: [settings], strict_production_validation: false })).status).toBe(200);
    expect(h.engine.lastCall('migratePackage')?.args[1]).toEqual({ strictProductionValidation: false });
  });

  it('reports the failure of the migration', async () => {
    h.engine.migrateFailure = new ConveyorError('ERR_MIGRATION', 'settings.py line 3: NameError: name "x" is not defined');
    const r = await migrate({ package: 'python', body: [settings, { name: 'new.py', data: 'v2' }] });
    expect(r.status).toBe(500);
    expect(r.json().error).toBe('ERROR #MIGRATION: settings.py line 3: NameError: name "x" is not defined');
  });

  it('takes the namespace from the body over the query, and refuses an unknown one', async () => {
    await migrate({ namespace: 'OTHER', package: 'pkg', body: [settings] }, '?namespace=USER');
    expect(h.engine.lastCall('migratePackage')?.namespace).toBe('OTHER');
    expect(uploadOf(h.engine.lastCall('migratePackage')).folder).toBe(await realpath(join(h.home, 'packages', 'OTHER')));
    expect((await migrate({ namespace: 'NOPE', package: 'pkg', body: [settings] })).json().error).toBe(
      'ERROR #NAMESPACE_UNKNOWN: Namespace NOPE does not exist',
    );
  });

  it('uses a remote_folder inside an allowed root, created when missing', async () => {
    const folder = join(h.home, 'custom', 'place');
    expect((await migrate({ package: 'pkg', remote_folder: folder, body: [settings] })).status).toBe(200);
    expect(uploadOf(h.engine.lastCall('migratePackage')).folder).toBe(await realpath(folder));
  });

  it('honours settings_file as the migration entry', async () => {
    await migrate({ package: 'pkg', settings_file: 'demo.py', body: [{ name: 'demo.py', data: '' }] });
    expect(uploadOf(h.engine.lastCall('migratePackage')).settingsFile).toBe('demo.py');
  });

  describe('refuses hostile or broken requests and writes nothing', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['an absolute name', { package: 'p', body: [settings, { name: '/etc/cron.d/x', data: '' }] }, /is absolute/],
      ['a .. name', { package: 'p', body: [settings, { name: 'a/../../x.py', data: '' }] }, /contains \.\./],
      ['a NUL in a name', { package: 'p', body: [settings, { name: 'a\u0000.py', data: '' }] }, /NUL/],
      ['a backslash name', { package: 'p', body: [settings, { name: '..\\x.py', data: '' }] }, /backslash/],
      ['a package with a slash', { package: '../p', body: [settings] }, /not a plain folder name/],
      ['a package of dots', { package: '..', body: [settings] }, /not a plain folder name/],
      ['a relative remote_folder', { package: 'p', remote_folder: 'rel/dir', body: [settings] }, /must be an absolute path/],
      ['a missing package', { body: [settings] }, /package is required/],
      ['a missing body', { package: 'p' }, /body is required/],
      ['a file listed twice', { package: 'p', body: [settings, settings] }, /listed twice/],
      ['no settings.py', { package: 'p', body: [{ name: 'x.py', data: '' }] }, /settings\.py is not among the uploaded files/],
      ['a hostile settings_file', { package: 'p', settings_file: '../x.py', body: [settings] }, /settings_file/],
    ];
    it.each(cases)('%s', async (_case, payload, message) => {
      const r = await migrate(payload);
      expect(r.status).toBe(500);
      expect(r.json().error).toMatch(message);
      expect(await tree(join(h.home, 'packages'))).toEqual([]);
      expect(h.engine.lastCall('migratePackage')).toBeUndefined();
    });

    it.each([
      [
        'a file that is not {name, data}',
        { package: 'p', body: [settings, { name: 'x.py', data: 3 }] },
        /body\[1\]\.data must be a string, not a number in the body of PUT/,
      ],
      ['an unknown field', { package: 'p', body: [settings], packge: 'q' }, /Unknown field packge in the body of PUT \/api\/iop\/migrate/],
      [
        'an unknown field in a file',
        { package: 'p', body: [settings, { name: 'x.py', data: '', mode: 7 }] },
        /Unknown field mode in body\[1\] in the body of PUT/,
      ],
    ])('%s is a 400 naming it, and writes nothing', async (_case, payload, message) => {
      const r = await migrate(payload);
      expect(r.status).toBe(400);
      expect(r.json().error).toMatch(message);
      expect(await tree(join(h.home, 'packages'))).toEqual([]);
      expect(h.engine.lastCall('migratePackage')).toBeUndefined();
    });

    it('a remote_folder outside the allowed roots', async () => {
      const r = await migrate({ package: 'p', remote_folder: outside, body: [settings] });
      expect(r.json().error).toMatch(/is outside the folders this server may write to/);
      expect(await tree(outside)).toEqual([]);
    });

    it('a remote_folder that leads outside through a link', async () => {
      await symlink(outside, join(h.home, 'escape'));
      const r = await migrate({ package: 'p', remote_folder: join(h.home, 'escape', 'sub'), body: [settings] });
      expect(r.status).toBe(500);
      expect(r.json().error).toMatch(/outside the folders/);
      expect(await tree(outside)).toEqual([]);
      await rm(join(h.home, 'escape'));
    });
  });

  it('refuses local_path from anything but the local socket, and writes nothing', async () => {
    const file = join(outside, 'settings.py');
    await writeFile(file, settings.data);
    const response = await migrate({ local_path: file });
    expect(response.status).toBe(500);
    expect(response.json().error).toMatch(/local_path is accepted only over the server's local socket/);
    expect(h.engine.calls.filter((c) => c.method === 'migrate')).toEqual([]);
  });
});
