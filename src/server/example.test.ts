import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { builtinExampleName, installExample, pythonExampleName } from './example.ts';

describe('the example production of a fresh home', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let engine: Engine | null = null;
  const said: string[] = [];

  beforeEach(async () => {
    dir = tempDir();
    process.env['CONVEYOR_HOME'] = dir.path;
    delete process.env['CONVEYOR_EXAMPLE_DATA'];
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    said.length = 0;
  });

  afterEach(async () => {
    await engine?.close();
    await store.close();
    dir.remove();
  });

  it('is the Python example: migrated, started, AutoStart, routing a dropped file by its content; installed once', async () => {
    engine = await Engine.open(store, { drainTimeoutMs: 1000, graceMs: 1000 });
    const installed = await installExample(engine, store, dir.path, (line) => said.push(line));
    expect(installed).toEqual({ production: pythonExampleName, inbox: join(dir.path, 'python-example', 'in') });
    expect(await installExample(engine, store, dir.path, (line) => said.push(line))).toBeNull();
    const user = await engine.namespace('USER');
    expect(await user.status()).toEqual({ production: pythonExampleName, status: 'running' });
    expect((await user.list())[pythonExampleName]?.autoStart).toBe(true);
    await writeFile(join(installed!.inbox, 'alarm.txt'), 'URGENT: the boiler');
    const urgent = join(dir.path, 'python-example', 'out', 'urgent');
    await eventually(async () => (await readdir(urgent).catch((): string[] => [])).includes('alarm.txt'), 'the file to reach out/urgent', 30_000);
    expect(await readFile(join(urgent, 'alarm.txt'), 'utf8')).toBe('URGENT: the boiler');
    expect(said).toEqual([]);
  });

  it('falls back to the built-in example when Python cannot run, and says why', async () => {
    engine = await Engine.open(store, { interpreter: join(dir.path, 'no-python-here'), drainTimeoutMs: 1000, graceMs: 500 });
    const installed = await installExample(engine, store, dir.path, (line) => said.push(line));
    expect(installed).toEqual({ production: builtinExampleName, inbox: join(dir.path, 'example', 'in') });
    expect(said[0]).toMatch(/The Python example could not be installed \(.+\); installing the built-in example instead/);
    await writeFile(join(installed!.inbox, 'order-1.txt'), 'two apples');
    const out = join(dir.path, 'example', 'out');
    await eventually(async () => (await readdir(out).catch((): string[] => [])).includes('order-1.txt'), 'the file to reach example/out');
    expect(await readFile(join(out, 'order-1.txt'), 'utf8')).toBe('two apples');
    expect(await readFile(join(dir.path, 'example', 'record.jsonl'), 'utf8')).toContain('two apples');
  });
});
