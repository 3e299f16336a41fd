/**
 * The Director never waits on user code without a bound: kill pre-empts, a stop escalates to a
 * kill, a test call waits outside the command order and times out, what can never answer is refused.
 * Components are scripted stand-ins for user code (the edge); store, hosts and queues are real.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext, ComponentInstance, Reply } from '../core/component.ts';
import type { ComponentKind } from '../core/components.ts';
import type { MessageBody } from '../core/message.ts';
import { newItem, newProduction, type ItemDefinition } from '../core/production.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import type { ResolvedComponent, Resolver } from './component-resolver.ts';
import { Director, type DirectorOptions } from './director.ts';
import { DtlService } from './dtl-service.ts';
import { pythonRunner } from './dtl-python.ts';
import { EventLog } from './event-log.ts';
import { stringRequest } from './native-messages.ts';
import { SingleProcessCoordinator } from './single-process-coordinator.ts';

const never = <T>() => new Promise<T>(() => undefined);

/** User code that hangs where it is told to; it records whether it was killed. */
class Stand implements ComponentInstance {
  killed = false;
  /** stop() was called (a real worker is ended by it, at the latest after its grace time). */
  stopped = false;
  constructor(
    private readonly hang: {
      init?: boolean;
      message?: boolean;
      stop?: boolean;
      initError?: string;
      holdText?: string;
      answerAfterMs?: number;
      initAfterMs?: number;
    },
  ) {}
  async init(): Promise<void> {
    if (this.hang.initError) throw new Error(this.hang.initError);
    if (this.hang.init) await never();
    if (this.hang.initAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, this.hang.initAfterMs));
  }
  async onMessage(request: MessageBody, _call: CallContext): Promise<Reply> {
    if (this.hang.message) await never();
    if (this.hang.holdText !== undefined && request.data.includes(this.hang.holdText)) await never();
    if (this.hang.answerAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, this.hang.answerAfterMs));
    return request;
  }
  async onProcessInput(): Promise<Reply> {
    return null;
  }
  async onResponse(_r: MessageBody, response: Reply): Promise<Reply> {
    return response;
  }
  async onComplete(_r: MessageBody, response: Reply): Promise<Reply> {
    return response;
  }
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.hang.stop) await never();
  }
  kill(): void {
    this.killed = true;
  }
  onExit(): void {}
}

describe('Director', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let director: Director | null;
  let made: Stand[];
  const classes = new Map<string, { kind: ComponentKind; hang: ConstructorParameters<typeof Stand>[0] }>();
  const resolver: Resolver = {
    async resolve(name): Promise<ResolvedComponent> {
      const found = classes.get(name);
      if (!found) throw new Error(`unknown class ${name}`);
      return { kind: found.kind, polling: false, fingerprint: 'x', factory: { create: () => made[made.push(new Stand(found.hang)) - 1] as Stand } };
    },
  };

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'db.sqlite') });
    made = [];
    classes.clear();
    classes.set('Ok', { kind: 'operation', hang: {} });
    classes.set('Service', { kind: 'service', hang: {} });
    director = null;
  });

  afterEach(async () => {
    await director?.kill().catch(() => undefined);
    await store.close();
    dir.remove();
  });

  async function directorFor(items: ItemDefinition[], options: Partial<DirectorOptions> = {}): Promise<Director> {
    await store.productions.put('USER', newProduction('Test.P', items));
    director = new Director(store, 'USER', resolver, new EventLog(store, 'USER', (e) => console.error(e)), {
      drainTimeoutMs: 200,
      graceMs: 200,
      transforms: new DtlService(store, 'USER', pythonRunner()),
      coordinator: new SingleProcessCoordinator(store),
      onError: (error) => console.error(error),
      ...options,
    });
    return director;
  }

  async function logTexts(): Promise<string[]> {
    return (await store.log.top('USER', 100)).map((entry) => `${entry.type} ${entry.text}`);
  }

  const ping = stringRequest('ping');

  it('kill pre-empts a start stuck in on_init and ends the starting worker', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    const d = await directorFor([newItem('Stuck', 'HangInit')]);
    const start = d.start('Test.P');
    start.catch(() => undefined);
    await eventually(() => made.length === 1 || undefined, 'the worker to be starting');
    await d.kill();
    await expect(start).rejects.toThrow(/killed while it was to start/);
    expect(made[0]?.killed).toBe(true);
    expect(d.reportedStatus()).toBe('stopped');
  });

  it('a job whose on_init does not finish within initTimeoutMs is ended and its item is in error', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    const d = await directorFor([newItem('Stuck', 'HangInit'), newItem('Fine', 'Ok')], { initTimeoutMs: 100 });
    await d.start('Test.P');
    const host = d.running?.requireHost('Stuck');
    expect(host?.state).toBe('error');
    expect(host?.error).toMatch(/did not start within 100 ms/);
    expect(made[0]?.killed).toBe(true);
    expect(d.running?.requireHost('Fine').state).toBe('running');
  });

  it('a stop that cannot finish escalates to a kill; the message in flight stays queued', async () => {
    classes.set('Hang', { kind: 'operation', hang: { message: true, stop: true } });
    const d = await directorFor([newItem('Stuck', 'Hang')], { stopTimeoutMs: 300, graceMs: 60_000 });
    await d.start('Test.P');
    const sent = await d.running!.send({ source: 'Tester', parentId: null, sessionId: null }, 'Stuck', ping, { responseRequired: false, description: '' });
    await sent.accepted;
    await eventually(() => d.running?.requireHost('Stuck').isHandling(sent.message.id) || undefined, 'the message to be in flight');
    await d.stop();
    expect(await logTexts()).toContainEqual(expect.stringMatching(/did not stop within 300 ms; killing it/));
    expect(d.reportedStatus()).toBe('suspended');
    expect((await store.messages.get('USER', sent.message.id))?.status).toBe('queued');
  });

  it("a production's own ShutdownTimeout (seconds) is its stop limit, ahead of the server's", async () => {
    classes.set('Hang', { kind: 'operation', hang: { message: true, stop: true } });
    const d = await directorFor([newItem('Stuck', 'Hang')], { stopTimeoutMs: 300_000, graceMs: 60_000 });
    await store.productions.put('USER', newProduction('Test.P', [newItem('Stuck', 'Hang')], { settings: [{ name: 'ShutdownTimeout', value: '1' }] }));
    await d.start('Test.P');
    const sent = await d.running!.send({ source: 'Tester', parentId: null, sessionId: null }, 'Stuck', ping, { responseRequired: false, description: '' });
    await sent.accepted;
    await eventually(() => d.running?.requireHost('Stuck').isHandling(sent.message.id) || undefined, 'the message to be in flight');
    await d.stop();
    expect(await logTexts()).toContainEqual(expect.stringMatching(/did not stop within 1000 ms; killing it/));
    expect(d.reportedStatus()).toBe('suspended');
  });

  it('a test call waits for its reply outside the command order: stop answers and releases it', async () => {
    classes.set('Hang', { kind: 'operation', hang: { message: true } });
    const d = await directorFor([newItem('Stuck', 'Hang')]);
    await d.start('Test.P');
    const test = d.test({ target: 'Stuck', body: ping, restart: false, timeoutMs: 60_000 });
    test.catch(() => undefined);
    await eventually(() => d.running?.requireHost('Stuck').inFlight === 1 || undefined, 'the test message to be in flight');
    await d.stop();
    await expect(test).rejects.toThrow(/before the reply came/);
  });

  it('a test call past its timeout ends the stuck worker, puts the item in error and fails its message', async () => {
    classes.set('Hang', { kind: 'operation', hang: { message: true } });
    const d = await directorFor([newItem('Stuck', 'Hang')]);
    await d.start('Test.P');
    const error = await d.test({ target: 'Stuck', body: ping, restart: false, timeoutMs: 100 }).then(
      () => ({ code: 'none', message: 'answered' }),
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error.code).toBe('ERR_TIMEOUT');
    expect(error.message).toMatch(/Stuck did not answer test message (\d+) within 100 ms; its worker was ended/);
    const host = d.running!.requireHost('Stuck');
    expect(host.state).toBe('error');
    expect(made.every((stand) => stand.killed)).toBe(true);
    const id = Number(/test message (\d+)/.exec(error.message)?.[1]);
    expect((await store.messages.get('USER', id))?.status).toBe('error');
    await expect(d.test({ target: 'Stuck', body: ping, restart: false })).rejects.toThrow(/Cannot test Stuck: it is in error/);
  });

  it('refuses at once what can never answer, naming the item and the reason', async () => {
    classes.set('Broken', { kind: 'operation', hang: { initError: 'no database' } });
    const d = await directorFor([newItem('In', 'Service'), newItem('Off', 'Ok', { enabled: false }), newItem('Broken', 'Broken'), newItem('Fine', 'Ok')]);
    await d.start('Test.P');
    await expect(d.test({ target: 'In', body: ping, restart: true })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: expect.stringMatching(/In: it is a business service/),
    });
    await expect(d.test({ target: 'Off', body: ping, restart: true })).rejects.toMatchObject({
      code: 'ERR_ITEM_NOT_RUNNING',
      message: expect.stringMatching(/Off: the item is disabled/),
    });
    await expect(d.test({ target: 'Broken', body: ping, restart: false })).rejects.toThrow(/Broken: it is in error: .*no database/);
    await expect(d.test({ target: 'Broken', body: ping, restart: true })).rejects.toThrow(/Item Broken did not restart: .*no database/);
    await d.component('stop', 'Fine');
    await expect(d.test({ target: 'Fine', body: ping, restart: false })).rejects.toThrow(/Fine: it is stopped/);
    expect(await d.test({ target: 'Fine', body: ping, restart: true })).toMatchObject({ reply: ping });
  });

  it('component start or restart of an item that cannot start fails with the reason', async () => {
    classes.set('Broken', { kind: 'operation', hang: { initError: 'no database' } });
    const d = await directorFor([newItem('Broken', 'Broken')]);
    await d.start('Test.P');
    await expect(d.component('restart', 'Broken')).rejects.toMatchObject({
      code: 'ERR_COMPONENT_FAILED',
      message: expect.stringMatching(/Item Broken did not restart: .*no database/),
    });
    await expect(d.component('start', 'Broken')).rejects.toThrow(/Item Broken did not start/);
  });

  it('a disabled item whose class is not registered logs no error at start', async () => {
    const d = await directorFor([newItem('Ghost', 'Nowhere', { enabled: false }), newItem('Fine', 'Ok')]);
    await d.start('Test.P');
    expect((await logTexts()).filter((text) => text.startsWith('Error'))).toEqual([]);
    await expect(d.component('start', 'Ghost')).rejects.toThrow(/Ghost/);
  });

  it('a stop does not wait for an item start stuck in on_init: that start gives up', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    const d = await directorFor([newItem('Fine', 'Ok'), newItem('Late', 'HangInit', { enabled: false })]);
    await d.start('Test.P');
    const stuckStart = d.component('start', 'Late');
    stuckStart.catch(() => undefined);
    await eventually(() => made.length === 2 || undefined, 'the second worker to be starting');
    // The on_init bound is 60 s; the stop (and this test, 5 s) must not wait for it.
    await d.stop();
    await expect(stuckStart).rejects.toThrow(/Item Late did not start: .*stopped while it started/);
    expect(made[1]?.killed || made[1]?.stopped).toBe(true);
    expect(d.reportedStatus()).toBe('stopped');
  });

  it('an item stuck in on_init holds up no command on other items, nor update, nor a test elsewhere', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    const d = await directorFor([newItem('Fine', 'Ok'), newItem('Other', 'Ok'), newItem('Late', 'HangInit', { enabled: false })]);
    await d.start('Test.P');
    const stuckStart = d.component('start', 'Late');
    stuckStart.catch(() => undefined);
    await eventually(() => made.length === 3 || undefined, 'the Late worker to be starting');
    // Each of these would wait 60 s (the on_init bound) behind the stuck start if it held the order.
    await d.component('restart', 'Fine');
    await d.component('stop', 'Other');
    expect(await d.test({ target: 'Fine', body: ping, restart: true })).toMatchObject({ reply: ping });
    // The stored definition now says what runs (Late enabled): update leaves Late alone and does not wait for it.
    await store.productions.put('USER', newProduction('Test.P', [newItem('Fine', 'Ok'), newItem('Other', 'Ok'), newItem('Late', 'HangInit')]));
    await d.update();
    // A second command on the stuck item itself waits for it, and a kill ends both.
    const again = d.component('restart', 'Late');
    again.catch(() => undefined);
    await d.kill();
    await expect(stuckStart).rejects.toThrow(/Late/);
    await expect(again).rejects.toThrow(/killed|no production is running/);
  });

  it('update changes its items at once, outside the order: a test elsewhere answers and a stop ends it (H-1)', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    const d = await directorFor([newItem('Fine', 'Ok')]);
    await d.start('Test.P');
    await store.productions.put(
      'USER',
      newProduction('Test.P', [newItem('Fine', 'Ok'), newItem('A', 'HangInit'), newItem('B', 'HangInit'), newItem('C', 'HangInit')]),
    );
    const update = d.update();
    update.catch(() => undefined);
    // All three on_init run together (one after another would start only A here).
    await eventually(() => made.length === 4 || undefined, 'the three added items to be starting together');
    // Each of these would wait for the update (60 s per on_init) if it held the command order.
    expect(await d.test({ target: 'Fine', body: ping, restart: false })).toMatchObject({ reply: ping });
    await d.component('restart', 'Fine');
    await d.stop();
    await expect(update).rejects.toThrow(/was stopped during the update/);
    expect(d.reportedStatus()).toBe('stopped');
    expect(made.slice(1).every((stand) => stand.killed || stand.stopped)).toBe(true);
  });

  it("a stop's limit counts from its request, even while an earlier command holds the order (H-1)", async () => {
    classes.set('Hang', { kind: 'operation', hang: { message: true, stop: true } });
    const d = await directorFor([newItem('Stuck', 'Hang')], { graceMs: 60_000 });
    await d.start('Test.P');
    const sent = await d.running!.send({ source: 'Tester', parentId: null, sessionId: null }, 'Stuck', ping, { responseRequired: false, description: '' });
    await sent.accepted;
    await eventually(() => d.running?.requireHost('Stuck').isHandling(sent.message.id) || undefined, 'the message to be in flight');
    // The first stop holds the order for up to a minute (its on_tear_down hangs, grace 60 s).
    const slow = d.stop(60_000);
    slow.catch(() => undefined);
    await d.stop(300);
    expect(await logTexts()).toContainEqual(expect.stringMatching(/did not stop within 300 ms \(an earlier command still held it up\); killing it/));
    expect(d.reportedStatus()).toBe('suspended');
    await slow;
    expect(made[0]?.killed).toBe(true);
  });

  it('a kill while a start is being recorded: the start fails as killed and is not logged as started (L-3)', async () => {
    const d = await directorFor([newItem('Fine', 'Ok')]);
    const setDefault = store.productions.setDefault.bind(store.productions);
    store.productions.setDefault = async (namespace, name) => {
      await d.kill();
      return setDefault(namespace, name);
    };
    await expect(d.start('Test.P')).rejects.toThrow(/killed while it was to start/);
    expect(await logTexts()).not.toContainEqual(expect.stringMatching(/Production Test.P started/));
    expect(d.reportedStatus()).toBe('stopped');
  });

  it('a test call during a start waits for the start instead of refusing (M-2)', async () => {
    classes.set('SlowInit', { kind: 'operation', hang: { initAfterMs: 300 } });
    const d = await directorFor([newItem('Slow', 'SlowInit')]);
    const start = d.start('Test.P');
    await eventually(() => made.length === 1 || undefined, 'the start to be under way');
    expect(d.reportedStatus()).toBe('running');
    expect(await d.test({ target: 'Slow', body: ping, restart: false })).toMatchObject({ reply: ping });
    await start;
  });

  it('a test timeout above the longest timer waits instead of firing at once (M-1)', async () => {
    classes.set('Slow', { kind: 'operation', hang: { answerAfterMs: 50 } });
    const d = await directorFor([newItem('Slow', 'Slow')]);
    await d.start('Test.P');
    expect(await d.test({ target: 'Slow', body: ping, restart: false, timeoutMs: 1e303 })).toMatchObject({ reply: ping });
    expect(d.running?.requireHost('Slow').state).toBe('running');
  });

  it('a timed-out test message that was still queued never runs and stays failed (M-3)', async () => {
    classes.set('Holds', { kind: 'operation', hang: { holdText: 'hold' } });
    const d = await directorFor([newItem('Busy', 'Holds')]);
    await d.start('Test.P');
    const held = await d.running!.send({ source: 'Tester', parentId: null, sessionId: null }, 'Busy', stringRequest('hold'), {
      responseRequired: false,
      description: '',
    });
    await held.accepted;
    await eventually(() => d.running?.requireHost('Busy').isHandling(held.message.id) || undefined, 'the held message to be in flight');
    const error = await d.test({ target: 'Busy', body: ping, restart: false, timeoutMs: 100 }).then(
      () => new Error('answered'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/still queued behind other messages and is marked failed/);
    const id = Number(/test message (\d+)/.exec(error.message)?.[1]);
    // A restart frees the job: a message queued after the abandoned one is answered, so the abandoned one had its turn.
    await d.component('restart', 'Busy');
    expect(await d.test({ target: 'Busy', body: ping, restart: false })).toMatchObject({ reply: ping });
    expect((await store.messages.get('USER', id))?.status).toBe('error');
  });

  it('shutdown ends within its budget even when an item is stuck starting', async () => {
    classes.set('HangInit', { kind: 'operation', hang: { init: true } });
    classes.set('Hang', { kind: 'operation', hang: { stop: true, message: true } });
    const d = await directorFor([newItem('Stuck', 'Hang'), newItem('Late', 'HangInit', { enabled: false })], { graceMs: 60_000 });
    await d.start('Test.P');
    // A component start stuck in on_init holds the command order (on_init is bounded, here 60 s).
    const stuckStart = d.component('start', 'Late');
    stuckStart.catch(() => undefined);
    await eventually(() => made.length === 2 || undefined, 'the second worker to be starting');
    await d.shutdown(300);
    expect(d.reportedStatus()).not.toBe('running');
    expect(made.every((stand) => stand.killed || stand.stopped)).toBe(true);
    expect(made[0]?.killed).toBe(true);
  });
});
