import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentInstance } from '../core/component.ts';
import { componentsDir, stringRequest, TestCall, TestContext, type Route } from '../../test/fixtures/python/harness.ts';
import { pythonComponentFactory, type PythonComponentSpec } from './index.ts';

const started: ComponentInstance[] = [];

async function start(spec: Omit<PythonComponentSpec, 'classpaths'>, context: TestContext): Promise<ComponentInstance> {
  const instance = pythonComponentFactory({ ...spec, classpaths: [componentsDir] }).create();
  started.push(instance);
  await instance.init(context);
  return instance;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop(2000)));
});

async function echoRoutes(): Promise<Record<string, Route>> {
  const echo = await start({ module: 'bo', className: 'EchoOperation' }, new TestContext('Echo', 'operation'));
  return { Echo: (body, call) => echo.onMessage(body, call) };
}

describe('python business services and adapters', () => {
  it('handles each poll (input null) in on_process_input, keeping state between polls', async () => {
    const routes = await echoRoutes();
    const service = await start({ module: 'bs', className: 'CountingService' }, new TestContext('Counter', 'service', undefined, routes));
    const first = await service.onProcessInput(null, new TestCall(routes));
    const second = await service.onProcessInput(null, new TestCall(routes));
    expect(JSON.parse(first!.data)).toEqual({ integer: 2, string: 'handled' });
    expect(JSON.parse(second!.data)).toEqual({ integer: 3, string: 'handled' });
  });

  it('hosts a Python inbound adapter: a poll runs on_task, which feeds the service through business_host.ProcessInput', async () => {
    const routes = await echoRoutes();
    const context = new TestContext('Lines', 'service', { host: {}, adapter: { lines: 'alpha,beta' } }, routes);
    const service = await start(
      { module: 'bs', className: 'AdapterDrivenService', adapter: { module: 'adapter', className: 'LineAdapter', classpaths: [componentsDir] } },
      context,
    );
    const calls = [new TestCall(routes), new TestCall(routes), new TestCall(routes)];
    for (const call of calls) expect(await service.onProcessInput(null, call)).toBeNull();
    expect(calls.map((c) => c.asyncSent.map((s) => JSON.parse(s.body.data)))).toEqual([
      [{ integer: 5, string: 'alpha' }],
      [{ integer: 4, string: 'beta' }],
      [],
    ]);
  });

  it('hosts a Python outbound adapter as self.adapter and runs on_keepalive every KeepaliveInterval', async () => {
    const context = new TestContext('Shouter', 'operation', { host: {}, adapter: { greeting: 'hey', KeepaliveInterval: '0.05' } });
    const op = await start(
      { module: 'bo', className: 'AdapterUsingOperation', adapter: { module: 'adapter', className: 'HeartbeatAdapter', classpaths: [componentsDir] } },
      context,
    );
    const reply = await op.onMessage(stringRequest('you'), new TestCall({}));
    expect(JSON.parse(reply!.data)).toEqual({ value: 'hey YOU' });
    expect(await context.waitForLog((l) => l.text === 'beat')).toMatchObject({ type: 'Info', sourceClass: 'HeartbeatAdapter', sourceMethod: 'on_keepalive' });
  });

  it('reaches its own service through Director.get_business_service from a thread, in a new call', async () => {
    const routes = await echoRoutes();
    const context = new TestContext('Pushed', 'service', undefined, routes);
    const service = await start({ module: 'bs', className: 'PushedService' }, context);
    const call = new TestCall(routes);
    const reply = await service.onProcessInput(stringRequest('start-thread'), call);
    expect(JSON.parse(reply!.data)).toEqual({ integer: 100, string: 'pushed' });
    expect(call.syncSent).toEqual([]);
    expect(context.newCalls).toHaveLength(1);
    expect(context.newCalls[0]!.syncSent.map((s) => [s.target, JSON.parse(s.body.data)])).toEqual([['Echo', { integer: 99, string: 'from a thread' }]]);
  });
});
