import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentInstance } from '../core/component.ts';
import { bodyBytes, carryBodyBytes } from '../core/message-bytes.ts';
import { componentsDir, json, runProcess, TestCall, TestContext, type Route } from '../../test/fixtures/python/harness.ts';
import { pythonComponentFactory } from './index.ts';

const started: ComponentInstance[] = [];

async function start(
  module: string,
  className: string,
  configName: string,
  routes: Record<string, Route> = {},
): Promise<{ instance: ComponentInstance; context: TestContext }> {
  const instance = pythonComponentFactory({ module, className, classpaths: [componentsDir] }).create();
  started.push(instance);
  const context = new TestContext(configName, module === 'bp' ? 'process' : 'operation', undefined, routes);
  await instance.init(context);
  return { instance, context };
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop(2000)));
});

async function echoRoutes(): Promise<Record<string, Route>> {
  const { instance: echo } = await start('bo', 'EchoOperation', 'Echo');
  const route: Route = (body, call) => echo.onMessage(body, call);
  return { Echo: route, Other: route };
}

describe('python business processes', () => {
  it('calls operations sync and async with completion keys and combines the replies in on_complete', async () => {
    const routes = await echoRoutes();
    const { instance: process } = await start('bp', 'CombiningProcess', 'Combine', routes);
    const { response, call } = await runProcess(process, json('message.SimpleMessage', { integer: 5, string: 'go' }), routes);
    expect(JSON.parse(response!.data)).toEqual({ value: 'pending+k1+k2 | sync=6 k1=10->11 k2=20->21' });
    expect(call.syncSent.map((s) => s.target)).toEqual(['Echo']);
    expect(call.asyncSent.map((s) => [s.target, s.options?.completionKey, s.options?.responseRequired])).toEqual([
      ['Echo', 'k1', true],
      ['Other', 'k2', true],
      ['Echo', null, false],
    ]);
    expect(call.timers).toEqual([{ timeoutMs: 5000, completionKey: 'timer' }]);
  });

  it('answers the caller early with reply()', async () => {
    const { instance: process } = await start('bp', 'ReplyingProcess', 'Reply');
    const call = new TestCall({});
    expect(await process.onMessage(json('message.SimpleMessage', {}), call)).toBeNull();
    expect(call.replies).toEqual([{ classname: 'message.MyResponse', encoding: 'json', data: '{"value":"early"}' }]);
  });

  it('sends several requests in parallel with send_multi_request_sync, reporting each status', async () => {
    const routes = await echoRoutes();
    const { instance: process } = await start('bp', 'MultiProcess', 'Multi', routes);
    const reply = await process.onMessage(json('message.SimpleMessage', {}), new TestCall({ Echo: routes.Echo! }));
    expect(JSON.parse(reply!.data).value).toBe('Echo:1:2:ok\nMissing:2:None:No item named Missing');
  });

  it('awaits concurrent send_request_async_ng calls with asyncio.gather', async () => {
    const routes = await echoRoutes();
    const { instance: process, context } = await start('bp', 'GatheringProcess', 'Gather', routes);
    const call = new TestCall(routes);
    const reply = await process.onMessage(json('message.SimpleMessage', {}), call);
    expect(JSON.parse(reply!.data).value).toBe('1,2,3,4,5');
    expect(call.syncSent).toHaveLength(5);
    expect(await context.waitForLog((l) => l.text === 'all responses received')).toMatchObject({ sourceClass: 'GatheringProcess', sourceMethod: 'on_request' });
  });

  it('hands back a large request it passes on or returns unchanged as the buffer the engine sent, not as a copy', async () => {
    const routes = await echoRoutes();
    const { instance: process } = await start('bp', 'RoutingProcess', 'Route', routes);
    const request = json('message.SimpleMessage', { integer: 1, string: 's'.repeat(2000) });
    const sent = Buffer.from(request.data);
    carryBodyBytes(request, sent);
    const call = new TestCall(routes);
    const reply = await process.onMessage(request, call);
    expect(bodyBytes(call.syncSent[0]!.body)).toBe(sent);
    expect(bodyBytes(reply!)).toBe(sent);
    expect(JSON.parse(reply!.data)).toEqual({ integer: 1, string: 's'.repeat(2000) });
  });

  it('streams a generator from an operation with send_generator_request', async () => {
    const { instance: streamer } = await start('bo', 'StreamingOperation', 'Streamer');
    const routes: Record<string, Route> = { Streamer: (body, call) => streamer.onMessage(body, call) };
    const { instance: process } = await start('bp', 'StreamingConsumer', 'Consumer', routes);
    const reply = await process.onMessage(json('message.SimpleMessage', {}), new TestCall(routes));
    expect(JSON.parse(reply!.data).value).toBe('0,1,2');
  });
});
