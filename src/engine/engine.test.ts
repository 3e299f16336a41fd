import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newItem, newProduction, type ProductionDefinition } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import { openStore } from '../store/open-store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { Engine } from './engine.ts';
import type { NamespaceOperations } from './namespace-operations.ts';
import { stringRequest } from './native-messages.ts';
import { expectCode, freshEngineForEachTest, type FreshEngine } from '../../test/support/engine-fixture.ts';

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
  let dir: FreshEngine['dir'];
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;
  freshEngineForEachTest({ drainTimeoutMs: 2000, graceMs: 1000 }, (fresh) => ({ dir, store, engine, user } = fresh));

  it('refuses to start without a name or default, and an unknown production', async () => {
    await expectCode(user.start(), 'ERR_NO_DEFAULT_PRODUCTION');
    await expectCode(user.start('Nope.Production'), 'ERR_PRODUCTION_NOT_FOUND', /Nope\.Production/);
    expect(await user.status()).toEqual({ production: '', status: 'stopped' });
  });

  it('refuses an unknown namespace once, when its handle is asked for, naming the known ones', async () => {
    await expectCode(engine.namespace('NOPE'), 'ERR_NAMESPACE_UNKNOWN', /NOPE/);
    const error = await engine.namespace('NOPE').catch((e: unknown) => e);
    expect((error as { hint?: string }).hint).toMatch(/USER/);
    expect(await engine.namespace('USER')).toBe(user);
  });

  it('answers GET /nodes on its own store with this server alone', async () => {
    expect(await engine.nodes()).toEqual([{ nodeId: 'local', host: hostname(), pid: process.pid, self: true, silentMs: 0 }]);
  });

  it('walks start → running → stop → stopped, and refuses what does not apply', async () => {
    await user.putDefinition(echoProduction('Demo.One', join(dir.path, 'one.jsonl')));
    await user.putDefinition(echoProduction('Demo.Two', join(dir.path, 'two.jsonl')));
    for (const command of ['stop', 'kill', 'restart', 'update'] as const) {
      await expectCode(user[command](), 'ERR_PRODUCTION_NOT_RUNNING', new RegExp(`Cannot ${command}`));
    }
    expect(await user.start('Demo.One')).toBe('Demo.One');
    expect(await user.status()).toEqual({ production: 'Demo.One', status: 'running' });
    expect(await user.getDefault()).toBe('Demo.One');
    await expectCode(user.start('Demo.Two'), 'ERR_PRODUCTION_RUNNING', /Demo\.One is already running/);
    const list = await user.list();
    expect(list['Demo.One']?.status).toBe('running');
    expect(list['Demo.One']?.lastStartTime).toBeTypeOf('number');
    expect(list['Demo.Two']?.status).toBe('stopped');

    await user.stop();
    expect(await user.status()).toEqual({ production: 'Demo.One', status: 'stopped' });
    expect((await user.list())['Demo.One']?.lastStopTime).toBeTypeOf('number');
    // The default is the last-used production.
    expect(await user.start()).toBe('Demo.One');
    await user.kill();
    expect((await user.status()).status).toBe('stopped');
  });

  it('carries a test message through a process to an operation and persists the session', async () => {
    const record = join(dir.path, 'record.jsonl');
    await user.putDefinition(echoProduction('Demo.Echo', record));
    await expectCode(user.test({ target: 'Router', classname: 'Ens.StringRequest', body: 'x' }), 'ERR_PRODUCTION_NOT_RUNNING');
    await user.start('Demo.Echo');
    await expectCode(user.test({ target: 'Nobody' }), 'ERR_ITEM_NOT_FOUND', /Nobody/);
    const result = await user.test({ target: 'Router', classname: 'Ens.StringRequest', body: 'héllo 日本' });
    expect(result.classname).toBe('Ens.StringRequest');
    expect(JSON.parse(result.body)).toEqual({ StringValue: 'héllo 日本' });
    const trace = await user.messages.trace(result.sessionId);
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
    await user.putDefinition(definition);
    await user.start('Demo.Update');
    await user.restart();
    expect((await user.status()).status).toBe('running');

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
    await user.putDefinition(changed);
    await user.update();
    expect(hosts().get('Router')).toBe(routerBefore);
    expect(hosts().get('Echo')).not.toBe(echoBefore);
    expect(hosts().has('Extra')).toBe(true);
    const log = await user.log.top(5);
    expect(log.some((e) => /updated: added Extra; restarted Echo/.test(e.text))).toBe(true);

    await user.putDefinition({ ...changed, items: changed.items.slice(0, 2) });
    await user.update();
    expect(hosts().has('Extra')).toBe(false);
    await user.test({ target: 'Router', classname: 'Ens.StringRequest', body: 'after update' });
    expect(await readFile(join(dir.path, 'b.jsonl'), 'utf8')).toContain('after update');
  });

  it('keeps two namespaces apart, each with its own running production', async () => {
    await store.namespaces.create('OTHER');
    const other = await engine.namespace('OTHER');
    await user.putDefinition(echoProduction('Demo.User', join(dir.path, 'u.jsonl')));
    await other.putDefinition(echoProduction('Demo.Other', join(dir.path, 'o.jsonl')));
    await user.start('Demo.User');
    await other.start('Demo.Other');
    expect(Object.keys(await user.list())).toEqual(['Demo.User']);
    expect(Object.keys(await other.list())).toEqual(['Demo.Other']);
    const test = await other.test({ target: 'Echo', classname: 'Ens.StringRequest', body: 'other' });
    await expectCode(user.messages.get(test.sessionId), 'ERR_MESSAGE_NOT_FOUND');
    expect((await other.messages.get(test.sessionId)).target).toBe('Echo');
    await user.stop();
    expect((await other.status()).status).toBe('running');
  });

  it('writes the event log with strictly increasing ids', async () => {
    await user.putDefinition(echoProduction('Demo.Log', join(dir.path, 'l.jsonl')));
    await user.start('Demo.Log');
    await user.stop();
    await user.start('Demo.Log');
    const top = await user.log.top(100);
    const ids = top.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    const since = await user.log.since(ids[ids.length - 1]!, 100);
    expect(since.map((e) => e.id)).toEqual([...ids].reverse().slice(1));
    expect(top.find((e) => e.text === 'Production Demo.Log started')?.type).toBe('Info');
  });

  it('reports suspended after a stop with requests still queued, and delivers them on the next start', async () => {
    const record = join(dir.path, 's.jsonl');
    const definition = echoProduction('Demo.Suspend', record);
    definition.items[1] = { ...definition.items[1]!, enabled: false };
    await user.putDefinition(definition);
    await user.start('Demo.Suspend');
    await engine.runningProduction('USER')!.send({ source: 'Outside', parentId: null, sessionId: null }, 'Echo', stringRequest('waits'), {
      responseRequired: false,
      description: '',
    });
    await user.stop();
    expect((await user.status()).status).toBe('suspended');
    await user.putDefinition(echoProduction('Demo.Suspend', record));
    await user.start('Demo.Suspend');
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
    const user = await engine.namespace('USER');
    try {
      expect(await user.status()).toEqual({ production: 'Demo.Crash', status: 'troubled' });
      expect((await user.list())['Demo.Crash']?.status).toBe('troubled');
      await user.start('Demo.Crash');
      expect((await user.status()).status).toBe('running');
    } finally {
      await engine.close();
      await store.close();
      dir.remove();
    }
  });
});
