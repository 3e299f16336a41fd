import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError, type ErrorCode } from '../core/errors.ts';
import { newItem, newProduction, type ProductionDefinition } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import { openStore } from '../store/open-store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { Engine } from './engine.ts';
import { stringRequest } from './native-messages.ts';

async function expectCode(promise: Promise<unknown>, code: ErrorCode, text?: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isConveyorError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  if (text) expect((error as Error).message).toMatch(text);
}

function echoProduction(name: string, recordFile: string, extra: Partial<ProductionDefinition> = {}): ProductionDefinition {
  return newProduction(
    name,
    [
      newItem('Router', 'Conveyor.Process.Router', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Echo' }] }),
      newItem('Echo', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: recordFile }] }),
    ],
    extra,
  );
}

describe('Engine lifecycle on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let engine: Engine;

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    engine = await Engine.open(store, { drainTimeoutMs: 2000, graceMs: 1000 });
  });

  afterEach(async () => {
    await engine.close();
    await store.close();
    dir.remove();
  });

  it('refuses to start without a name or default, and an unknown production', async () => {
    await expectCode(engine.start('USER'), 'ERR_NO_DEFAULT_PRODUCTION');
    await expectCode(engine.start('USER', 'Nope.Production'), 'ERR_PRODUCTION_NOT_FOUND', /Nope\.Production/);
    expect(await engine.status('USER')).toEqual({ production: '', status: 'stopped' });
  });

  it('refuses every command in an unknown namespace', async () => {
    await expectCode(engine.status('NOPE'), 'ERR_NAMESPACE_UNKNOWN', /NOPE/);
    await expectCode(engine.start('NOPE', 'X'), 'ERR_NAMESPACE_UNKNOWN');
    await expectCode(engine.logTop('NOPE', 10), 'ERR_NAMESPACE_UNKNOWN');
  });

  it('walks start → running → stop → stopped, and refuses what does not apply', async () => {
    await engine.putDefinition('USER', echoProduction('Demo.One', join(dir.path, 'one.jsonl')));
    await engine.putDefinition('USER', echoProduction('Demo.Two', join(dir.path, 'two.jsonl')));
    for (const command of ['stop', 'kill', 'restart', 'update'] as const) {
      await expectCode(engine[command]('USER'), 'ERR_PRODUCTION_NOT_RUNNING', new RegExp(`Cannot ${command}`));
    }
    expect(await engine.start('USER', 'Demo.One')).toBe('Demo.One');
    expect(await engine.status('USER')).toEqual({ production: 'Demo.One', status: 'running' });
    expect(await engine.getDefault('USER')).toBe('Demo.One');
    await expectCode(engine.start('USER', 'Demo.Two'), 'ERR_PRODUCTION_RUNNING', /Demo\.One is already running/);
    const list = await engine.list('USER');
    expect(list['Demo.One']?.status).toBe('running');
    expect(list['Demo.One']?.lastStartTime).toBeTypeOf('number');
    expect(list['Demo.Two']?.status).toBe('stopped');

    await engine.stop('USER');
    expect(await engine.status('USER')).toEqual({ production: 'Demo.One', status: 'stopped' });
    expect((await engine.list('USER'))['Demo.One']?.lastStopTime).toBeTypeOf('number');
    // The default is the last-used production.
    expect(await engine.start('USER')).toBe('Demo.One');
    await engine.kill('USER');
    expect((await engine.status('USER')).status).toBe('stopped');
  });

  it('carries a test message through a process to an operation and persists the session', async () => {
    const record = join(dir.path, 'record.jsonl');
    await engine.putDefinition('USER', echoProduction('Demo.Echo', record));
    await expectCode(engine.test('USER', { target: 'Router', classname: 'Ens.StringRequest', body: 'x' }), 'ERR_PRODUCTION_NOT_RUNNING');
    await engine.start('USER', 'Demo.Echo');
    await expectCode(engine.test('USER', { target: 'Nobody' }), 'ERR_ITEM_NOT_FOUND', /Nobody/);
    const result = await engine.test('USER', { target: 'Router', classname: 'Ens.StringRequest', body: 'héllo 日本' });
    expect(result.classname).toBe('Ens.StringRequest');
    expect(JSON.parse(result.body)).toEqual({ StringValue: 'héllo 日本' });
    const trace = await engine.sessionTrace('USER', result.sessionId);
    expect(trace.map((m) => `${m.kind}:${m.source}->${m.target}:${m.status}`)).toEqual([
      'request:EnsLib.Testing.Service->Router:completed',
      'request:Router->Echo:completed',
      'response:Echo->Router:completed',
      'response:Router->EnsLib.Testing.Service:completed',
    ]);
    expect((await readFile(record, 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('restarts the running production and updates only the changed items', async () => {
    const definition = echoProduction('Demo.Update', join(dir.path, 'a.jsonl'));
    await engine.putDefinition('USER', definition);
    await engine.start('USER', 'Demo.Update');
    await engine.restart('USER');
    expect((await engine.status('USER')).status).toBe('running');

    const hosts = () => engine.runningProduction('USER')!.hosts;
    const routerBefore = hosts().get('Router');
    const echoBefore = hosts().get('Echo');
    const changed: ProductionDefinition = {
      ...definition,
      items: [
        definition.items[0]!,
        { ...definition.items[1]!, settings: [{ target: 'Host', name: 'FilePath', value: join(dir.path, 'b.jsonl') }] },
        newItem('Extra', 'Conveyor.Operation.Echo'),
      ],
    };
    await engine.putDefinition('USER', changed);
    await engine.update('USER');
    expect(hosts().get('Router')).toBe(routerBefore);
    expect(hosts().get('Echo')).not.toBe(echoBefore);
    expect(hosts().has('Extra')).toBe(true);
    const log = await engine.logTop('USER', 5);
    expect(log.some((e) => /updated: added Extra; restarted Echo/.test(e.text))).toBe(true);

    await engine.putDefinition('USER', { ...changed, items: changed.items.slice(0, 2) });
    await engine.update('USER');
    expect(hosts().has('Extra')).toBe(false);
    await engine.test('USER', { target: 'Router', classname: 'Ens.StringRequest', body: 'after update' });
    expect(await readFile(join(dir.path, 'b.jsonl'), 'utf8')).toContain('after update');
  });

  it('keeps two namespaces apart, each with its own running production', async () => {
    await store.namespaces.create('OTHER');
    await engine.putDefinition('USER', echoProduction('Demo.User', join(dir.path, 'u.jsonl')));
    await engine.putDefinition('OTHER', echoProduction('Demo.Other', join(dir.path, 'o.jsonl')));
    await engine.start('USER', 'Demo.User');
    await engine.start('OTHER', 'Demo.Other');
    expect(Object.keys(await engine.list('USER'))).toEqual(['Demo.User']);
    expect(Object.keys(await engine.list('OTHER'))).toEqual(['Demo.Other']);
    const test = await engine.test('OTHER', { target: 'Echo', classname: 'Ens.StringRequest', body: 'other' });
    await expectCode(engine.getMessage('USER', test.sessionId), 'ERR_MESSAGE_NOT_FOUND');
    expect((await engine.getMessage('OTHER', test.sessionId)).target).toBe('Echo');
    await engine.stop('USER');
    expect((await engine.status('OTHER')).status).toBe('running');
  });

  it('writes the event log with strictly increasing ids', async () => {
    await engine.putDefinition('USER', echoProduction('Demo.Log', join(dir.path, 'l.jsonl')));
    await engine.start('USER', 'Demo.Log');
    await engine.stop('USER');
    await engine.start('USER', 'Demo.Log');
    const top = await engine.logTop('USER', 100);
    const ids = top.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    const since = await engine.logSince('USER', ids[ids.length - 1]!, 100);
    expect(since.map((e) => e.id)).toEqual([...ids].reverse().slice(1));
    expect(top.find((e) => e.text === 'Production Demo.Log started')?.type).toBe('Info');
  });

  it('reports suspended after a stop with requests still queued, and delivers them on the next start', async () => {
    const record = join(dir.path, 's.jsonl');
    const definition = echoProduction('Demo.Suspend', record);
    definition.items[1] = { ...definition.items[1]!, enabled: false };
    await engine.putDefinition('USER', definition);
    await engine.start('USER', 'Demo.Suspend');
    await engine.runningProduction('USER')!.send({ source: 'Outside', parentId: null, sessionId: null }, 'Echo', stringRequest('waits'), {
      responseRequired: false,
      description: '',
    });
    await engine.stop('USER');
    expect((await engine.status('USER')).status).toBe('suspended');
    await engine.putDefinition('USER', echoProduction('Demo.Suspend', record));
    await engine.start('USER', 'Demo.Suspend');
    await eventually(async () => (await readFile(record, 'utf8').catch(() => '')).includes('waits'), 'the queued message to be delivered');
  });
});

describe('Engine after a crash', () => {
  it('reports troubled for a production that was running, until it is started again', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'conveyor.db');
    const first = await openStore({ sqlitePath: path });
    await first.productions.put('USER', echoProduction('Demo.Crash', join(dir.path, 'c.jsonl')));
    await first.productions.setState('USER', 'Demo.Crash', { state: 'running', lastStartTime: Date.now() });
    await first.close();

    const store = await openStore({ sqlitePath: path });
    const engine = await Engine.open(store, { drainTimeoutMs: 1000, graceMs: 500 });
    try {
      expect(await engine.status('USER')).toEqual({ production: 'Demo.Crash', status: 'troubled' });
      expect((await engine.list('USER'))['Demo.Crash']?.status).toBe('troubled');
      await engine.start('USER', 'Demo.Crash');
      expect((await engine.status('USER')).status).toBe('running');
    } finally {
      await engine.close();
      await store.close();
      dir.remove();
    }
  });
});
