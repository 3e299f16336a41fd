import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFiles, checkRelativeName, replacePackage, resolveTargetFolder } from './package-upload.ts';

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

describe('replacePackage', () => {
  it('runs uploads of one package one after the other, the last one winning', async () => {
    const order: string[] = [];
    const upload = (tag: string) =>
      replacePackage(root, 'pkg', [{ name: 'v.txt', data: tag }], async (dir) => {
        order.push(`${tag}:${await readFile(join(dir, 'v.txt'), 'utf8')}`);
      });
    await Promise.all([upload('one'), upload('two'), upload('three')]);
    expect(order).toEqual(['one:one', 'two:two', 'three:three']);
    expect(await readFile(join(root, 'pkg', 'v.txt'), 'utf8')).toBe('three');
    expect(await readdir(root)).toEqual(['pkg']);
  });

  it('a write that fails leaves nothing behind', async () => {
    // checkFiles refuses this upfront; replacePackage must still clean up when the disk refuses.
    await expect(replacePackage(root, 'pkg', [{ name: 'a', data: '' }, { name: 'a/b.py', data: '' }], async () => undefined)).rejects.toThrow();
    expect(await readdir(root)).toEqual([]);
  });
});

describe('checkFiles', () => {
  it('refuses a name that is both a file and a folder', () => {
    expect(() => checkFiles([{ name: 'a', data: '' }, { name: 'a/b/c.py', data: '' }])).toThrow('"a" is both a file and the folder of "a/b/c.py"');
  });
});
