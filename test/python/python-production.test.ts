/**
 * End to end through the real engine, store and python3 workers: the examples/file-routing package
 * is migrated, its service → process → operation production moves files by content, a SIGKILLed
 * worker is restarted, and an item whose module does not import is put in error while the rest runs.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const exampleSettings = fileURLToPath(new URL('../../examples/file-routing/settings.py', import.meta.url));
const iopStyleSettings = fileURLToPath(new URL('../fixtures/python/migration/settings.py', import.meta.url));

describe('a Python production through the engine', () => {
  const dir = tempDir('conveyor-python-e2e-');
  const data = join(dir.path, 'data');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;

  beforeAll(async () => {
    process.env.CONVEYOR_EXAMPLE_DATA = data;
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000 });
    user = await engine.namespace('USER');
    const report = await user.migrate(exampleSettings);
    expect(report.productions).toEqual(['Example.FileRouting']);
  });

  afterEach(async () => {
    if ((await user.status()).status === 'running') await user.stop();
  });

  afterAll(async () => {
    await engine.close();
    await store.close();
    dir.remove();
  });

  it('routes dropped files by content from the service through the process to the operations', async () => {
    await user.start('Example.FileRouting');
    const staging = join(dir.path, 'staging');
    mkdirSync(staging, { recursive: true });
    mkdirSync(join(data, 'in'), { recursive: true });
    const files = { 'a.txt': 'URGENT: the server room is flooding', 'b.txt': 'weekly report, nothing special', 'c.txt': 'これは緊急ではありません' };
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(staging, name), text);
      renameSync(join(staging, name), join(data, 'in', name));
    }
    await eventually(() => readdirSync(join(data, 'out', 'normal')).length === 2 || undefined, 'the normal files to be written');
    expect(readdirSync(join(data, 'out', 'urgent'))).toEqual(['a.txt']);
    expect(readFileSync(join(data, 'out', 'urgent', 'a.txt'), 'utf8')).toBe(files['a.txt']);
    expect(readFileSync(join(data, 'out', 'normal', 'c.txt'), 'utf8')).toBe(files['c.txt']);

    const log = await user.log.top(200);
    const routed = log.find((entry) => entry.text.startsWith('a.txt -> UrgentWriter'));
    expect(routed).toMatchObject({ configName: 'Router', sourceClass: 'ContentRouter', sourceMethod: 'on_file', type: 'Info' });
    const requests = await user.messages.search({ target: 'UrgentWriter', kind: 'request', limit: 10 });
    expect(requests).toHaveLength(1);
    const trace = await user.messages.trace(requests[0]!.sessionId);
    expect(trace.map((m) => `${m.source}->${m.target}:${m.kind}`)).toEqual(
      expect.arrayContaining(['Inbox->Router:request', 'Router->UrgentWriter:request', 'UrgentWriter->Router:response']),
    );
  });

  it('restarts a SIGKILLed worker and the next message succeeds', async () => {
    await user.start('Example.FileRouting');
    const ask = async (name: string) => {
      const result = await user.test({ target: 'NormalWriter', classname: 'msg.FileMessage', body: { name, text: 'probe' }, restart: false });
      expect(result.classname).toBe('msg.WriteResult');
      return JSON.parse(result.body) as { path: string; worker_pid: number };
    };
    const before = await ask('probe-1.txt');
    process.kill(before.worker_pid, 'SIGKILL');
    await eventually(
      async () => (await user.log.top(50)).some((e) => e.configName === 'NormalWriter' && e.type === 'Error' && e.text.includes('SIGKILL')) || undefined,
      'the death to be logged',
    );
    const after = await ask('probe-2.txt');
    expect(after.worker_pid).not.toBe(before.worker_pid);
    expect(readFileSync(after.path, 'utf8')).toBe('probe');
  });

  it('puts an item whose module does not import in error with a clear log entry; the rest runs', async () => {
    const [writer] = (await user.classes()).filter((c) => c.name === 'Example.FolderWriter');
    await store.classes.put('USER', { ...writer!, name: 'Broken.Operation', module: 'no_such_module', className: 'Nothing', updatedAt: Date.now() });
    await user.putDefinition(
      newProduction('Example.Partial', [
        newItem('Broken', 'Broken.Operation'),
        newItem('Writer', 'Example.FolderWriter', { settings: [{ target: 'Host', name: 'folder', value: join(data, 'partial') }] }),
      ]),
    );
    await user.start('Example.Partial');
    const items = await user.items();
    const broken = items.find((i) => i.name === 'Broken');
    expect(broken?.state).toBe('error');
    expect(broken?.error).toContain("ModuleNotFoundError: No module named 'no_such_module'");
    const logged = (await user.log.top(50)).find((e) => e.configName === 'Broken' && e.type === 'Error');
    expect(logged?.text).toContain("No module named 'no_such_module'");
    const result = await user.test({ target: 'Writer', classname: 'msg.FileMessage', body: { name: 'ok.txt', text: 'still running' } });
    expect(JSON.parse(result.body).path).toBe(join(data, 'partial', 'ok.txt'));
  });

  it('runs an IoP-style fixture package unchanged: a Host setting overrides the class default, a None default stays None', async () => {
    await user.migrate(iopStyleSettings);
    await user.start('Python.TestSettingProduction');
    const ask = async (attribute: string) => {
      const result = await user.test({ target: 'UnitTest.MySettingOperation', classname: 'iris.Ens.StringRequest', body: attribute });
      expect(result.classname).toBe('message.MyResponse');
      return (JSON.parse(result.body) as { value: string | null }).value;
    };
    expect(await ask('my_str_var')).toBe('bar');
    expect(await ask('my_none_var')).toBeNull();
    expect(await ask('my_int_var')).toBe('1');
    expect(await ask('my_float_var')).toBe('1.0');
  });
});
