import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { componentsDir, json, TestCall, TestContext, type Route } from '../../test/fixtures/python/harness.ts';
import type { ComponentInstance } from '../core/component.ts';
import { pythonComponentFactory } from './index.ts';
import { workerFrames, type WorkerFrameEvent } from './python-worker.ts';

const started: ComponentInstance[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop(2000)));
});

async function start(module: string, className: string, configName: string, routes: Record<string, Route> = {}): Promise<ComponentInstance> {
  const instance = pythonComponentFactory({ module, className, classpaths: [componentsDir] }).create();
  started.push(instance);
  await instance.init(new TestContext(configName, module === 'bp' ? 'process' : 'operation', undefined, routes));
  return instance;
}

describe('python worker frames channel', () => {
  it('publishes every frame a handled message sends each way, in the order they crossed', async () => {
    const echo = await start('bo', 'EchoOperation', 'Echo');
    const events: WorkerFrameEvent[] = [];
    const listener = (event: unknown): void => void events.push(event as WorkerFrameEvent);
    subscribe(workerFrames.name, listener);
    try {
      await echo.onMessage(json('message.SimpleMessage', { integer: 1, string: 'go' }), new TestCall({}));
      await echo.onMessage(json('message.SimpleMessage', { integer: 2, string: 'go' }), new TestCall({}));
    } finally {
      unsubscribe(workerFrames.name, listener);
    }
    expect(events.map((event) => [event.direction, event.type])).toEqual([
      ['to-worker', 'invoke'],
      ['from-worker', 'result'],
      ['to-worker', 'invoke'],
      ['from-worker', 'result'],
    ]);
    expect(new Set(events.map((event) => event.pid)).size).toBe(1);
    expect(events.every((event, index) => index === 0 || event.at >= events[index - 1]!.at)).toBe(true);
  });

  it('publishes nothing once the last subscriber left', async () => {
    const echo = await start('bo', 'EchoOperation', 'Echo');
    const events: unknown[] = [];
    const listener = (event: unknown): void => void events.push(event);
    subscribe(workerFrames.name, listener);
    unsubscribe(workerFrames.name, listener);
    await echo.onMessage(json('message.SimpleMessage', { integer: 1, string: 'go' }), new TestCall({}));
    expect(workerFrames.hasSubscribers).toBe(false);
    expect(events).toEqual([]);
  });
});
