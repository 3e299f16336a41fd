import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine.ts';
import { openStore } from '../store/open-store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { exampleProductionName, installExample } from './example.ts';

describe('the example production', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('is installed once on a fresh home, starts by itself and routes a dropped file by name', async () => {
    const store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    expect(await installExample(store, dir.path)).toBe(true);
    expect(await installExample(store, dir.path)).toBe(false);
    const engine = await Engine.open(store, { drainTimeoutMs: 1000, graceMs: 500 });
    try {
      expect(await engine.status('USER')).toEqual({ production: exampleProductionName, status: 'running' });
      await mkdir(join(dir.path, 'example', 'in'), { recursive: true });
      await writeFile(join(dir.path, 'example', 'in', 'order-1.txt'), 'two apples');
      const out = join(dir.path, 'example', 'out');
      await eventually(async () => (await readdir(out)).includes('order-1.txt'), 'the file to reach example/out');
      expect(await readFile(join(out, 'order-1.txt'), 'utf8')).toBe('two apples');
      expect(await readFile(join(dir.path, 'example', 'record.jsonl'), 'utf8')).toContain('two apples');
      expect(await readdir(join(dir.path, 'example', 'in'))).toEqual([]);
    } finally {
      await engine.close();
      await store.close();
    }
  });
});
