import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMessage } from '../store/conformance/harness.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { coordinatorFor } from './choose-coordinator.ts';
import type { Coordinator } from './coordinator.ts';
import { EventLog } from './event-log.ts';
import { SingleProcessCoordinator } from './single-process-coordinator.ts';
import { WorkQueue } from './work-queue.ts';

describe('SingleProcessCoordinator on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let errors: unknown[];

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    errors = [];
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  const queues = (coordinator: SingleProcessCoordinator) =>
    coordinator.productionQueues({ namespace: 'USER', log: new EventLog(store, 'USER', (e) => errors.push(e)), onError: (e) => errors.push(e) });

  it('is what coordinatorFor picks for a store only one server uses', () => {
    expect(coordinatorFor(store, { onError: (e) => errors.push(e) })).toBeInstanceOf(SingleProcessCoordinator);
  });

  it('is the only live node: every lease is its own, exclusive work runs at once, and a shutdown stops its productions', async () => {
    const coordinator: Coordinator = new SingleProcessCoordinator(store);
    await coordinator.start();
    const [self] = await coordinator.liveNodes();
    expect(self).toMatchObject({ nodeId: 'local', pid: process.pid, silentMs: 0 });
    expect(await coordinator.listNodes()).toHaveLength(1);
    expect(await coordinator.holdLease('anything', 1000)).toBe(true);
    expect(await coordinator.exclusively('start', async () => 'done')).toBe('done');
    expect(coordinator.productionsOutliveShutdown).toBe(false);
    const unsubscribe = coordinator.listen(() => {
      throw new Error('nobody else can send events');
    });
    coordinator.announce({ type: 'wake', namespace: 'USER', target: 'Op' });
    unsubscribe();
    await coordinator.stop();
  });

  it('gives each item an in-memory queue and records a request, its id known before the row is committed', async () => {
    const production = queues(new SingleProcessCoordinator(store));
    expect(production.create('Op', 1)).toBeInstanceOf(WorkQueue);
    const { id, accepted } = await production.insert(newMessage({ target: 'Op' }));
    await accepted;
    expect(await store.messages.get('USER', id)).toMatchObject({ id, target: 'Op', status: 'queued' });
  });

  it('on resume, requeues what an earlier run left unfinished and discards children their unfinished parent will send again', async () => {
    const [parent] = await store.messages.insert([newMessage({ target: 'Proc', status: 'delivered' })]);
    const [child, orphanTarget, done] = await store.messages.insert([
      newMessage({ target: 'Op', parentId: parent!, sessionId: parent! }),
      newMessage({ target: 'RemovedItem' }),
      newMessage({ target: 'Op', status: 'completed' }),
    ]);
    const hosts = new Map([
      ['Proc', { queue: new WorkQueue() }],
      ['Op', { queue: new WorkQueue() }],
    ]);
    await queues(new SingleProcessCoordinator(store)).resume(hosts);
    expect(
      hosts
        .get('Proc')!
        .queue.drain()
        .map((m) => m.id),
    ).toEqual([parent]);
    expect(hosts.get('Op')!.queue.depth).toBe(0);
    expect(await store.messages.get('USER', child!)).toMatchObject({ status: 'discarded', error: 'Sent again by its parent after a restart' });
    expect((await store.messages.get('USER', orphanTarget!))?.status).toBe('queued');
    expect((await store.messages.get('USER', done!))?.status).toBe('completed');
    const [entry] = await eventually(async () => {
      const entries = await store.log.search('USER', { text: 'Recovered', limit: 5 });
      return entries.length > 0 ? entries : undefined;
    }, 'the recovery log entry');
    expect(entry?.text).toBe('Recovered 1 unfinished message (1 superseded by their parent)');
    expect(errors).toEqual([]);
  });

  it('on resume with nothing unfinished, changes and logs nothing', async () => {
    await store.messages.insert([newMessage({ status: 'completed' })]);
    const hosts = new Map([['Op', { queue: new WorkQueue() }]]);
    await queues(new SingleProcessCoordinator(store)).resume(hosts);
    expect(hosts.get('Op')!.queue.depth).toBe(0);
    await new EventLog(store, 'USER', (e) => errors.push(e)).writeNow('Info', 'marker');
    expect((await store.log.top('USER', 10)).map((e) => e.text)).toEqual(['marker']);
  });
});
