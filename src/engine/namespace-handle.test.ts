import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newItem, newProduction, type ProductionDefinition } from '../core/production.ts';
import type { Store } from '../store/store.ts';
import { Engine } from './engine.ts';
import type { NamespaceOperations } from './namespace-operations.ts';
import { expectCode, freshEngineForEachTest, type FreshEngine } from '../../test/support/engine-fixture.ts';

const transform = `<transform sourceClass='Ens.StringRequest' targetClass='Ens.StringResponse' create='new' language='objectscript'>
<assign value='source.StringValue' property='target.StringValue' action='set'/>
</transform>`;

function routed(name: string, recordFile: string): ProductionDefinition {
  return newProduction(name, [
    newItem('Router', 'Conveyor.Process.Router', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Echo, Spare' }] }),
    newItem('Echo', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: recordFile }] }),
    newItem('Spare', 'Conveyor.Operation.Echo', { enabled: false }),
  ]);
}

describe('the namespace handle (engine.namespace) on a real SQLite store', () => {
  let dir: FreshEngine['dir'];
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;
  freshEngineForEachTest({ drainTimeoutMs: 1000, graceMs: 500 }, (fresh) => ({ dir, store, engine, user } = fresh));

  it('keeps the definitions, DTL and lookups of two namespaces apart', async () => {
    await store.namespaces.create('OTHER');
    const other = await engine.namespace('OTHER');
    expect(other.name).toBe('OTHER');
    await user.putDefinition(routed('Demo.Routed', join(dir.path, 'u.jsonl')));
    await user.dtl.putTransform('Demo.Copy', transform);
    await user.dtl.putLookup('Lang', { hello: 'en' });
    expect(Object.keys(await other.list())).toEqual([]);
    expect(await other.dtl.listTransforms()).toEqual([]);
    await expectCode(other.dtl.getTransform('Demo.Copy'), 'ERR_TRANSFORM_NOT_FOUND', /namespace OTHER/);
    await expectCode(other.dtl.getLookup('Lang'), 'ERR_LOOKUP_NOT_FOUND', /namespace OTHER/);
    expect(await user.dtl.getLookup('Lang')).toEqual({ hello: 'en' });
    expect((await engine.namespaces()).sort()).toEqual(['OTHER', 'USER']);
  });

  it('refuses a definition naming an item twice, an unknown default and a missing default', async () => {
    const twice = newProduction('Demo.Twice', [newItem('Echo', 'Conveyor.Operation.Echo'), newItem('Echo', 'Conveyor.Operation.Echo')]);
    await expectCode(user.putDefinition(twice), 'ERR_INVALID_INPUT', /Echo appears twice/);
    await expectCode(user.getDefinition(), 'ERR_NO_DEFAULT_PRODUCTION');
    await expectCode(user.setDefault('Nope.Production'), 'ERR_PRODUCTION_NOT_FOUND', /Nope\.Production/);
    expect(await user.getDefault()).toBe('');
  });

  it('describes a stopped production from its definition: items, connections', async () => {
    await user.putDefinition(routed('Demo.Routed', join(dir.path, 'u.jsonl')));
    await user.setDefault('Demo.Routed');
    expect((await user.items()).map((i) => [i.name, i.state])).toEqual([
      ['Router', 'stopped'],
      ['Echo', 'stopped'],
      ['Spare', 'disabled'],
    ]);
    expect(await user.connections()).toEqual([
      { from: 'Router', to: 'Echo' },
      { from: 'Router', to: 'Spare' },
    ]);
  });

  it('refuses what needs a running production, and unknown or unsendable messages', async () => {
    await expectCode(user.components.restart('Echo'), 'ERR_PRODUCTION_NOT_RUNNING');
    await expectCode(user.messages.get(4242), 'ERR_MESSAGE_NOT_FOUND', /4242/);
    await user.putDefinition(routed('Demo.Routed', join(dir.path, 'u.jsonl')));
    await user.start('Demo.Routed');
    const call = await user.test({ target: 'Echo', classname: 'Ens.StringRequest', body: 'ping', restart: false });
    const response = (await user.messages.trace(call.sessionId)).find((m) => m.kind === 'response');
    await expectCode(user.messages.resend(response!.id), 'ERR_INVALID_INPUT', /only requests can be resent/);
    await user.stop();
    await expectCode(user.messages.resend(call.sessionId), 'ERR_PRODUCTION_NOT_RUNNING');
  });

  it('resends a request, counts what items handled and finds it in the event log', async () => {
    await user.putDefinition(routed('Demo.Routed', join(dir.path, 'u.jsonl')));
    await user.start('Demo.Routed');
    const call = await user.test({ target: 'Echo', classname: 'Ens.StringRequest', body: 'ping', restart: false });
    const resent = await user.messages.resend(call.sessionId);
    expect(resent).toBeGreaterThan(call.sessionId);
    expect((await user.messages.get(resent)).description).toBe(`Resent from message ${call.sessionId}`);
    await expect.poll(async () => (await user.messageCounts()).find((c) => c.item === 'Echo')?.processed).toBe(2);
    expect((await user.messages.search({ target: 'Echo', kind: 'request', limit: 10 })).map((m) => m.id)).toContain(resent);
    expect((await user.log.search({ text: 'Demo.Routed started', limit: 5 })).map((e) => e.text)).toEqual(['Production Demo.Routed started']);
  });
});
