import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFiles, checkRelativeName, resolveTargetFolder } from './package-upload.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'conveyor-upload-'));
});
afterEach(async () => rm(root, { recursive: true, force: true }));

describe('checkRelativeName', () => {
  it('accepts relative names with folders, hidden ones included', () => {
    for (const name of ['settings.py', 'a/b/c.py', '.venv/lib/x.py', 'weird name é.py']) expect(() => checkRelativeName(name)).not.toThrow();
  });

  it.each([['/abs.py'], ['C:/x.py'], ['a/../b.py'], ['..'], ['a//b.py'], ['./a.py'], ['a\\b.py'], ['a\u0000.py'], ['']])('refuses %j', (name) => {
    expect(() => checkRelativeName(name)).toThrow(expect.objectContaining({ code: 'ERR_UNSAFE_PATH' }));
  });
});

describe('resolveTargetFolder', () => {
  it('defaults to the namespace folder and creates it', async () => {
    const folder = await resolveTargetFolder(undefined, join(root, 'packages', 'USER'), [root]);
    expect(folder).toBe(join(root, 'packages', 'USER'));
    expect(await readdir(join(root, 'packages'))).toEqual(['USER']);
  });

  it('resolves links before checking the allowed roots', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'conveyor-outside-'));
    try {
      await symlink(outside, join(root, 'link'));
      await expect(resolveTargetFolder(join(root, 'link', 'deeper'), root, [root])).rejects.toThrow(/outside the folders/);
      await mkdir(join(root, 'real'));
      await symlink(join(root, 'real'), join(root, 'inner-link'));
      expect(await resolveTargetFolder(join(root, 'inner-link', 'x'), root, [root])).toBe(join(root, 'real', 'x'));
      await expect(resolveTargetFolder(`${root}-sibling/x`, root, [root])).rejects.toThrow(/outside the folders/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

// Writing, validating and switching a package in: src/engine/migration/package-swap.test.ts.
describe('checkFiles', () => {
  it('refuses a name that is both a file and a folder', () => {
    expect(() =>
      checkFiles([
        { name: 'a', data: '' },
        { name: 'a/b/c.py', data: '' },
      ]),
    ).toThrow('"a" is both a file and the folder of "a/b/c.py"');
  });
});
