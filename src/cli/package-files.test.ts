import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectPackageFiles } from './package-files.ts';

const root = mkdtempSync(join(tmpdir(), 'cli-package-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(relative: string, content: string | Buffer): void {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

describe('collectPackageFiles', () => {
  file('settings.py', 'CLASSES = {}\n');
  file('bo.py', 'print("é")\n');
  file('pkg/__init__.py', '');
  file('pkg/sub/op.py', 'x = 1\n');
  file('Demo.cls', 'Class Demo {}\n');
  file('data/table.csv', 'a,b\n1,2\n');
  file('data/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
  file('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  file('__pycache__/bo.cpython-311.pyc', 'junk');
  file('pkg/__pycache__/x.pyc', 'junk');
  file('stray.pyc', 'junk');
  file('.git/HEAD', 'ref: x');
  file('node_modules/m/index.js', 'x');
  file('.venv/lib/site.py', 'x');
  file('env311/pyvenv.cfg', 'home = /usr/bin');
  file('env311/lib/python3.11/site-packages/requests/__init__.py', 'x');
  file('.mypy_cache/x.json', '{}');
  symlinkSync(join(root, 'pkg'), join(root, 'linked-folder'));
  symlinkSync(join(root, 'bo.py'), join(root, 'linked.py'));

  const collected = collectPackageFiles(root);

  it('uploads Python, class and text data files with /-separated relative names, sorted', () => {
    expect(collected.files.map((f) => f.name)).toEqual(['Demo.cls', 'bo.py', 'data/table.csv', 'linked.py', 'pkg/__init__.py', 'pkg/sub/op.py', 'settings.py']);
    expect(collected.files.find((f) => f.name === 'bo.py')!.data).toBe('print("é")\n');
  });

  it('never uploads virtual environments, caches, VCS or node folders, nor followed folder links', () => {
    const names = collected.files.map((f) => f.name).join(' ');
    for (const left of ['__pycache__', '.pyc', '.git', 'node_modules', '.venv', 'env311', '.mypy_cache', 'linked-folder']) expect(names).not.toContain(left);
  });

  it('lists binary files it leaves out', () => {
    expect(collected.skippedBinary).toEqual(['data/logo.png', 'latin1.txt']);
  });

  it('counts the bytes it carries', () => {
    expect(collected.bytes).toBe(collected.files.reduce((sum, f) => sum + Buffer.byteLength(f.data), 0));
  });
});
