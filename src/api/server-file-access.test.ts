import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noServerFileAccess, resolveReadableFile, type ServerFileAccess } from './server-file-access.ts';

let dir: string;
let home: string;
let access: ServerFileAccess;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'conveyor-file-access-')));
  home = join(dir, 'home');
  await mkdir(join(home, 'imports'), { recursive: true });
  await mkdir(join(dir, 'shared'));
  await writeFile(join(home, 'users.json'), '{"users": []}');
  await writeFile(join(home, 'imports', 'a.json'), '{}');
  await writeFile(join(dir, 'shared', 'b.json'), '{}');
  await writeFile(join(dir, 'key.pem'), 'secret');
  // As the server sets it up: the home's imports folder, the allowed roots (default: the home) and here also shared/.
  access = { roots: [join(home, 'imports'), home, join(dir, 'shared')], closed: [home, join(dir, 'key.pem')] };
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('resolveReadableFile', () => {
  it("allows files in the home's imports folder and in other allowed roots", async () => {
    expect(await resolveReadableFile(join(home, 'imports', 'a.json'), access)).toBe(join(home, 'imports', 'a.json'));
    expect(await resolveReadableFile(join(dir, 'shared', 'b.json'), access)).toBe(join(dir, 'shared', 'b.json'));
  });

  it("refuses the home's own files, though the home is an allowed root, also by .. and by a link", async () => {
    await symlink(join(home, 'users.json'), join(home, 'imports', 'link.json'));
    for (const path of [join(home, 'users.json'), join(home, 'imports', '..', 'users.json'), join(home, 'imports', 'link.json'), join(home, 'conveyor.db')]) {
      await expect(resolveReadableFile(path, access), path).rejects.toThrow(/^path ".*" is outside the folders the server reads schema files from$/);
    }
  });

  it('reads a relative name in the first root (the import folder), and refuses one that leads out with ..', async () => {
    expect(await resolveReadableFile('a.json', access)).toBe(join(home, 'imports', 'a.json'));
    await expect(resolveReadableFile('../users.json', access)).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
    await expect(resolveReadableFile('../../shared/b.json', { ...access, roots: [join(home, 'imports')] })).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
  });

  it('refuses paths outside the roots without looking at them, a closed file inside one, and relative paths when there is no root', async () => {
    await expect(resolveReadableFile('/etc/passwd', access)).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
    await expect(resolveReadableFile(join(dir, 'no-such-folder', 'x.json'), access)).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
    await expect(resolveReadableFile(join(dir, 'key.pem'), { ...access, roots: [...access.roots, dir] })).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
    await expect(resolveReadableFile('imports/a.json', noServerFileAccess)).rejects.toThrow(/must be an absolute path/);
    await expect(resolveReadableFile(join(home, 'imports', 'a.json'), noServerFileAccess)).rejects.toMatchObject({ code: 'ERR_UNSAFE_PATH' });
  });

  it('says a missing file inside the roots cannot be read', async () => {
    await expect(resolveReadableFile(join(home, 'imports', 'gone.json'), access)).rejects.toThrow(/Cannot read the schema file ".*gone\.json": ENOENT/);
  });
});
