/**
 * Python processes through the real engine: sync and async calls with completion keys combined in
 * on_complete, concurrent send_request_async_ng, send_multi_request_sync with a failing target, and
 * a generator streamed from an operation; Python inbound and outbound adapters hosted with their
 * service and operation.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const settings = fileURLToPath(new URL('../fixtures/python/components/settings.py', import.meta.url));

describe('Python processes through the engine', () => {
  const dir = tempDir('conveyor-python-bp-');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;

  beforeAll(async () => {
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000 });
    user = await engine.namespace('USER');
    await user.migrate(settings);
    await user.start('Bridge.Production');
  });

  afterAll(async () => {
    await user.stop();
    await engine.close();
    await store.close();
    dir.remove();
  });

  const call = async (target: string, body: unknown = {}) => {
    const result = await user.test({ target, classname: 'message.SimpleMessage', body, restart: false });
    return { value: (JSON.parse(result.body) as { value: string }).value, sessionId: result.sessionId };
  };

  it('combines a sync reply and two async replies with completion keys in on_complete', async () => {
    const { value, sessionId } = await call('Combine', { integer: 5, string: 'go' });
    expect(value).toMatch(/^pending\+k[12]\+k[12] \| sync=6 k1=10->11 k2=20->21$/);
    expect(value).toContain('k1');
    const trace = await user.messages.trace(sessionId);
    const requests = trace.filter((m) => m.kind === 'request' && m.source === 'Combine').map((m) => m.target);
    expect(requests.sort()).toEqual(['Echo', 'Echo', 'Echo', 'Other']);
  });

  it('runs concurrent send_request_async_ng calls', async () => {
    expect((await call('Gather')).value).toBe('1,2,3,4,5');
  });

  it('reports each outcome of send_multi_request_sync, a missing target included', async () => {
    const { value } = await call('Multi');
    const [ok, missing] = value.split('\n');
    expect(ok).toBe('Echo:1:2:ok');
    expect(missing).toMatch(/^Missing:2:None:.+/);
  });

  it('streams the items of a generator from an operation', async () => {
    expect((await call('Consumer')).value).toBe('0,1,2');
  });

  it('polls a service whose Python inbound adapter feeds it through business_host.ProcessInput', async () => {
    const sent = await eventually(async () => {
      const messages = await user.messages.search({ source: 'Lines', target: 'Echo', kind: 'request', limit: 10 });
      return messages.length === 2 ? messages : undefined;
    }, 'both lines to reach Echo');
    const bodies = await Promise.all(sent.map(async (m) => JSON.parse((await user.messages.get(m.id)).body.data) as unknown));
    expect(bodies).toEqual(
      expect.arrayContaining([
        { integer: 5, string: 'alpha' },
        { integer: 4, string: 'beta' },
      ]),
    );
  });

  it('gives an operation its Python outbound adapter as self.adapter, configured by Adapter settings', async () => {
    const result = await user.test({ target: 'Shouter', classname: 'Ens.StringRequest', body: 'you', restart: false });
    expect(JSON.parse(result.body)).toEqual({ value: 'hey YOU' });
  });
});
