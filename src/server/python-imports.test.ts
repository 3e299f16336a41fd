import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.ts';
import { pythonFilesOf, shortName } from './python-imports.ts';

describe('the Python files of a module (static import closure within the classpaths)', () => {
  let dir: ReturnType<typeof tempDir>;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it('follows plain, from, relative, parenthesized and in-function imports; not the standard library nor unrelated files', async () => {
    write(
      'app/bo.py',
      'import os, json as j\nfrom iop import BusinessOperation\nfrom pkg.sub import (\n    helper,\n    other as o,\n)\ndef f():\n    import lazy\n',
    );
    write('app/pkg/__init__.py', '');
    write('app/pkg/sub/__init__.py', 'from . import shared\n');
    write('app/pkg/sub/helper.py', 'from ..util import x\n');
    write('app/pkg/sub/shared.py', '');
    write('app/pkg/util.py', '');
    write('app/lazy.py', '');
    write('app/unrelated.py', '');
    const files = await pythonFilesOf('bo', [join(dir.path, 'app')]);
    expect(files.map((file) => shortName(file, [join(dir.path, 'app')]))).toEqual([
      'bo.py',
      'lazy.py',
      'pkg/__init__.py',
      'pkg/sub/__init__.py',
      'pkg/sub/helper.py',
      'pkg/sub/shared.py',
      'pkg/util.py',
    ]);
  });

  it('takes a module from the first classpath that has it, and finds nothing for an unknown module', async () => {
    write('a/m.py', 'import n\n');
    write('b/m.py', '');
    write('b/n.py', '');
    expect(await pythonFilesOf('m', [join(dir.path, 'a'), join(dir.path, 'b')])).toEqual([join(dir.path, 'a/m.py'), join(dir.path, 'b/n.py')]);
    expect(await pythonFilesOf('nothing', [join(dir.path, 'a')])).toEqual([]);
  });
});
