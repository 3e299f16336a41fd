import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AsyncResponse, CallContext, ComponentContext, ComponentInstance, Reply } from '../core/component.ts';
import type { ComponentKind } from '../core/components.ts';
import { isConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { newItem, newProduction, type ItemDefinition } from '../core/production.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { builtinClasses } from './builtin/index.ts';
import type { ResolvedComponent, Resolver } from './component-resolver.ts';
import { DtlService } from './dtl-service.ts';
import { pythonRunner } from './dtl-python.ts';
import { EventLog } from './event-log.ts';
import { bodyText, stringRequest } from './native-messages.ts';
import { NamespaceMonitor } from './monitor/namespace-monitor.ts';
import { RunningProduction } from './running-production.ts';
import { SingleProcessCoordinator } from './single-process-coordinator.ts';

/**
 * Components with scripted behaviour, standing in for user code at the edge of these tests; the
 * store, the hosts, the queues and the routing under test are the real ones.
 */
class Scripted implements ComponentInstance {
  exit: (reason: string) => void = () => undefined;
  constructor(private readonly behaviour: Partial<ComponentInstance> & { onInitHook?: (c: ComponentContext) => Promise<void> }) {}
  async init(context: ComponentContext) {
    await this.behaviour.onInitHook?.(context);
  }
  onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    return this.behaviour.onMessage ? this.behaviour.onMessage.call(this, request, call) : Promise.resolve(request);
  }
  onProcessInput(input: Reply, call: CallContext): Promise<Reply> {
    return this.behaviour.onProcessInput ? this.behaviour.onProcessInput(input, call) : Promise.resolve(null);
  }
  onResponse(request: MessageBody, response: Reply, a: AsyncResponse, call: CallContext): Promise<Reply> {
    return this.behaviour.onResponse ? this.behaviour.onResponse(request, response, a, call) : Promise.resolve(response);
  }
  onComplete(request: MessageBody, response: Reply, call: CallContext): Promise<Reply> {
    return this.behaviour.onComplete ? this.behaviour.onComplete(request, response, call) : Promise.resolve(response);
  }
  async stop() {}
  kill() {}
  onExit(listener: (reason: string) => void) {
    this.exit = listener;
  }
}

function scripted(kind: ComponentKind, make: () => Scripted): ResolvedComponent {
  return { kind, polling: false, fingerprint: 'x', factory: { create: make } };
}

describe('RunningProduction', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let production: RunningProduction | null;
  const classes = new Map<string, ResolvedComponent>();
  let monitor: NamespaceMonitor | null = null;
  const resolver: Resolver = {
    async resolve(name) {
      const builtin = builtinClasses.get(name);
      if (builtin) return { kind: builtin.kind, factory: builtin.factory, polling: false, fingerprint: 'b' };
      const found = classes.get(name);
      if (!found) throw new Error(`unknown class ${name}`);
      return found;
    },
  };

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'db.sqlite') });
    classes.clear();
    monitor = null;
    production = null;
  });

  afterEach(async () => {
    production?.kill();
    monitor?.close();
    await store.close();
    dir.remove();
  });

  async function run(items: ItemDefinition[]): Promise<RunningProduction> {
    const log = new EventLog(store, 'USER', (e) => console.error(e));
    monitor = new NamespaceMonitor('USER', store, log, () => production);
    production = new RunningProduction(store, 'USER', newProduction('Test.P', items), resolver, log, {
      drainTimeoutMs: 1000,
      graceMs: 500,
      monitor,
      transforms: new DtlService(store, 'USER', pythonRunner()),
      coordinator: new SingleProcessCoordinator(store),
      onError: (error) => console.error(error),
    });
    await production.start();
    return production;
  }

  const call = async (p: RunningProduction, target: string, text: string) => {
    const sent = await p.send({ source: 'Tester', parentId: null, sessionId: null }, target, stringRequest(text), { responseRequired: true, description: '' });
    return sent.reply as Promise<Reply>;
  };

  it('answers a caller that handles a request of its own before the reply commits, and commits it with the session outcome', async () => {
    let innerId: number | null = null;
    let innerRowSeenByCaller: unknown = 'not read';
    classes.set(
      'Inner',
      scripted('operation', () => new Scripted({ onMessage: async (request, call) => ((innerId = call.messageId), request) })),
    );
    classes.set(
      'Outer',
      scripted(
        'process',
        () =>
          new Scripted({
            async onMessage(request, call) {
              const reply = await call.sendSync('Op', request);
              // The inner request, its reply and its completion are not committed yet: they ride in this request's outcome.
              innerRowSeenByCaller = await store.messages.get('USER', innerId!);
              return reply;
            },
          }),
      ),
    );
    const p = await run([newItem('Proc', 'Outer'), newItem('Op', 'Inner')]);
    const reply = await call(p, 'Proc', 'chain');
    expect(bodyText(reply!)).toBe('chain');
    expect(innerRowSeenByCaller).toBeNull();
    const inner = await store.messages.get('USER', innerId!);
    expect(inner?.status).toBe('completed');
    const session = await store.messages.session('USER', inner!.sessionId);
    expect(session.map((m) => `${m.kind} ${m.source}→${m.target} ${m.status}`)).toEqual([
      'request Tester→Proc completed',
      'request Proc→Op completed',
      'response Op→Proc completed',
      'response Proc→Tester completed',
    ]);
  });

  it('hands inputs pushed into a service at the same moment to different jobs of its pool', async () => {
    // The behaviour object of each job's instance: one per job.
    const handledBy: object[] = [];
    classes.set(
      'Inbound',
      scripted(
        'service',
        () =>
          new Scripted({
            async onProcessInput(input) {
              handledBy.push(this);
              await new Promise((resolve) => setTimeout(resolve, 20));
              return input;
            },
          }),
      ),
    );
    const p = await run([newItem('Svc', 'Inbound', { poolSize: 3 })]);
    const results = await Promise.all(['a', 'b', 'c'].map((text) => p.processInput('Svc', stringRequest(text))));
    expect(results.map((r) => bodyText(r.result!))).toEqual(['a', 'b', 'c']);
    expect(new Set(handledBy).size).toBe(3);
  });

  it('retries a failing operation with E=R and then succeeds', async () => {
    let attempts = 0;
    classes.set(
      'Flaky',
      scripted(
        'operation',
        () =>
          new Scripted({
            async onMessage(request) {
              attempts++;
              if (attempts < 3) throw new Error(`flaky attempt ${attempts}`);
              return request;
            },
          }),
      ),
    );
    const p = await run([
      newItem('Op', 'Flaky', {
        settings: [
          { target: 'Host', name: 'ReplyCodeActions', value: 'E=R' },
          { target: 'Host', name: 'RetryInterval', value: '0.01' },
        ],
      }),
    ]);
    const reply = await call(p, 'Op', 'again');
    expect(bodyText(reply!)).toBe('again');
    expect(attempts).toBe(3);
    expect(monitor?.statistics.find('Op')).toMatchObject({ processed: 1, failed: 0 });
    const warnings = (await store.log.top('USER', 50)).filter((e) => e.type === 'Warning' && /retrying/.test(e.text));
    expect(warnings).toHaveLength(2);
  });

  it('fails the message at once without E=R and hands the error to the waiting caller', async () => {
    classes.set(
      'Broken',
      scripted('operation', () => new Scripted({ onMessage: () => Promise.reject(new Error('disk full')) })),
    );
    const p = await run([newItem('Op', 'Broken')]);
    const error = await call(p, 'Op', 'x').catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_COMPONENT_FAILED')).toBe(true);
    expect((error as Error).message).toBe('disk full');
    const [header] = await store.messages.search('USER', { limit: 1, target: 'Op' });
    expect(header?.status).toBe('error');
    expect(header?.error).toBe('disk full');
    expect(monitor?.statistics.find('Op')).toMatchObject({ processed: 0, failed: 1 });
    expect((await store.log.top('USER', 10)).some((e) => e.type === 'Error' && e.configName === 'Op' && /disk full/.test(e.text))).toBe(true);
  });

  it('puts an item whose component cannot start in error and runs the rest', async () => {
    classes.set(
      'NoStart',
      scripted('operation', () => new Scripted({ onInitHook: () => Promise.reject(new Error('ImportError: no module named nowhere')) })),
    );
    const p = await run([newItem('Bad', 'NoStart'), newItem('Good', 'Conveyor.Operation.Echo'), newItem('Ghost', 'Not.Registered')]);
    expect(p.requireHost('Bad').state).toBe('error');
    expect(p.requireHost('Bad').error).toMatch(/ImportError/);
    expect(p.requireHost('Ghost').state).toBe('error');
    expect(bodyText((await call(p, 'Good', 'fine'))!)).toBe('fine');
    const log = await store.log.top('USER', 20);
    expect(log.some((e) => e.type === 'Error' && e.configName === 'Bad' && /failed to start: ImportError/.test(e.text))).toBe(true);
    expect(log.some((e) => e.type === 'Error' && e.configName === 'Ghost' && /unknown class Not\.Registered/.test(e.text))).toBe(true);
  });

  it('restarts a job whose worker died, and the next message succeeds', async () => {
    const made: Scripted[] = [];
    classes.set(
      'Mortal',
      scripted('operation', () => {
        const instance = new Scripted({
          async onMessage(request) {
            if (bodyText(request) === 'die') {
              instance.exit('worker exited with signal SIGKILL');
              throw new Error('worker exited with signal SIGKILL');
            }
            return request;
          },
        });
        made.push(instance);
        return instance;
      }),
    );
    const p = await run([newItem('Op', 'Mortal')]);
    await expect(call(p, 'Op', 'die')).rejects.toThrow(/SIGKILL/);
    expect(bodyText((await call(p, 'Op', 'alive'))!)).toBe('alive');
    expect(made).toHaveLength(2);
    const log = await store.log.top('USER', 20);
    expect(log.some((e) => /Job 0 of item Op died: worker exited with signal SIGKILL/.test(e.text))).toBe(true);
    expect(log.some((e) => /Job 0 of item Op restarted/.test(e.text))).toBe(true);
  });

  it('feeds async replies of a process to on_response and finishes with on_complete', async () => {
    const seen: string[] = [];
    classes.set(
      'Fan',
      scripted(
        'process',
        () =>
          new Scripted({
            async onMessage(request, c) {
              await c.sendAsync('A', request, { completionKey: 'a', responseRequired: true });
              await c.sendAsync('B', request, { completionKey: 'b', responseRequired: true });
              return null;
            },
            async onResponse(_request, response, arrival) {
              seen.push(String(arrival.completionKey));
              const text = `${response ? bodyText(response) : ''}|${arrival.completionKey}:${bodyText(arrival.callResponse!)}`;
              return stringRequest(text);
            },
            async onComplete(_request, response) {
              return stringRequest(`done ${bodyText(response!)}`);
            },
          }),
      ),
    );
    const p = await run([newItem('Fan', 'Fan'), newItem('A', 'Conveyor.Operation.Echo'), newItem('B', 'Conveyor.Operation.Echo')]);
    const reply = bodyText((await call(p, 'Fan', 'x'))!);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(reply).toMatch(/^done \|(a:x\|b:x|b:x\|a:x)$/);
  });

  it('keeps the order of an item with pool size 1', async () => {
    const order: string[] = [];
    classes.set(
      'Slowish',
      scripted(
        'operation',
        () =>
          new Scripted({
            async onMessage(request) {
              await new Promise((r) => setTimeout(r, Math.random() * 3));
              order.push(bodyText(request));
              return null;
            },
          }),
      ),
    );
    const p = await run([newItem('Op', 'Slowish')]);
    for (let i = 0; i < 50; i++) {
      await p.send({ source: 'Tester', parentId: null, sessionId: null }, 'Op', stringRequest(String(i)), { responseRequired: false, description: '' });
    }
    await eventually(() => order.length === 50, 'all 50 messages');
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it("polls a duplex operation's inbound side between its messages: never both at once, the order of pool size 1 kept, and a stop ends it", async () => {
    const order: string[] = [];
    let polls = 0;
    let busy = false;
    let overlapped = false;
    const turn = async (what: () => void) => {
      if (busy) overlapped = true;
      busy = true;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      what();
      busy = false;
    };
    classes.set('Duplex', {
      ...scripted(
        'operation',
        () =>
          new Scripted({
            onMessage: (request) => turn(() => order.push(bodyText(request))).then(() => null),
            onProcessInput: (input) => turn(() => (expect(input).toBeNull(), polls++)).then(() => null),
          }),
      ),
      polling: true,
    });
    const p = await run([newItem('Op', 'Duplex', { settings: [{ target: 'Adapter', name: 'CallInterval', value: '0.01' }] })]);
    for (let i = 0; i < 50; i++) {
      await p.send({ source: 'Tester', parentId: null, sessionId: null }, 'Op', stringRequest(String(i)), { responseRequired: false, description: '' });
    }
    await eventually(() => order.length === 50 && polls >= 3, 'all 50 messages and a few polls');
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    expect(overlapped).toBe(false);
    await p.stop();
    const after = polls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(polls).toBe(after);
  });

  it('pushes inputs into a service, whose sends share a session', async () => {
    classes.set(
      'Pusher',
      scripted(
        'service',
        () =>
          new Scripted({
            async onProcessInput(input, c) {
              const first = await c.sendSync('Echo', input!);
              await c.sendSync('Echo', stringRequest('second'));
              return first;
            },
          }),
      ),
    );
    const p = await run([newItem('In', 'Pusher', { poolSize: 2 }), newItem('Echo', 'Conveyor.Operation.Echo')]);
    const results = await Promise.all([p.processInput('In', stringRequest('a')), p.processInput('In', stringRequest('b'))]);
    expect(results.map((r) => bodyText(r.result!)).sort()).toEqual(['a', 'b']);
    for (const { sessionId } of results) {
      const trace = await store.messages.session('USER', sessionId!);
      expect(trace.map((m) => `${m.kind}:${m.source}->${m.target}`)).toEqual([
        'request:In->Echo',
        'response:Echo->In',
        'request:In->Echo',
        'response:Echo->In',
      ]);
    }
    await expect(p.processInput('Echo', null)).rejects.toThrow(/Echo is not a business service \(its kind is operation\)/);
  });

  it('brings back a job whose worker died while idle before handing it the next message', async () => {
    const made: Scripted[] = [];
    classes.set(
      'Idle',
      scripted('operation', () => {
        const instance = new Scripted({});
        made.push(instance);
        return instance;
      }),
    );
    const p = await run([newItem('Op', 'Idle')]);
    made[0]!.exit('worker exited with signal SIGKILL');
    expect(bodyText((await call(p, 'Op', 'still served'))!)).toBe('still served');
    expect(made).toHaveLength(2);
  });

  it('does not mistake the first messages of a fresh start for leftovers of a previous run', async () => {
    classes.set('Eager', {
      ...scripted(
        'service',
        () =>
          new Scripted({
            async onProcessInput(_input, c) {
              await c.sendSync('Router', stringRequest('first'));
              return null;
            },
          }),
      ),
      polling: true,
    });
    // Starts slowly (a Python import, say): the service already polls while it starts.
    classes.set(
      'SlowStart',
      scripted('operation', () => new Scripted({ onInitHook: () => new Promise((resolve) => setTimeout(resolve, 300)) })),
    );
    let handled = 0;
    classes.set(
      'SlowWork',
      scripted(
        'operation',
        () =>
          new Scripted({
            async onMessage(request) {
              handled++;
              await new Promise((resolve) => setTimeout(resolve, 600));
              return request;
            },
          }),
      ),
    );
    const p = await run([
      newItem('In', 'Eager', { settings: [{ target: 'Adapter', name: 'CallInterval', value: '60' }] }),
      newItem('Router', 'Conveyor.Process.Router', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Work' }] }),
      newItem('Work', 'SlowWork'),
      newItem('Slow', 'SlowStart'),
    ]);
    await eventually(async () => {
      const found = await store.messages.search('USER', { limit: 10, target: 'Work', kind: 'request' });
      return found.length > 0 && found.every((m) => m.status === 'completed') ? found : undefined;
    }, 'the first poll to be handled');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(handled).toBe(1);
    expect(await store.messages.search('USER', { limit: 10, status: 'discarded' })).toEqual([]);
    expect((await store.log.top('USER', 20)).some((e) => /Recovered/.test(e.text))).toBe(false);
    p.kill();
  });
});
