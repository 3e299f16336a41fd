import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewMessage, Store } from '../store/store.ts';
import { openStore } from '../store/open-store.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { coordinatorFor } from './choose-coordinator.ts';
import { EventLog } from './event-log.ts';
import { stringRequest } from './native-messages.ts';
import { SingleProcessCoordinator } from './single-process-coordinator.ts';
import { WorkQueue } from './work-queue.ts';

function request(target: string, parentId: number | null = null): NewMessage {
  return {
    namespace: 'USER',
    sessionId: null,
    parentId,
    correspondingId: null,
    kind: 'request',
    source: 'Tester',
    target,
    responseRequired: false,
    status: 'queued',
    priority: 0,
    description: '',
    body: stringRequest(target),
  };
}

describe('SingleProcessCoordinator on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let coordinator: SingleProcessCoordinator;
  const errors: unknown[] = [];

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    coordinator = new SingleProcessCoordinator(store);
    errors.length = 0;
  });

  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  const queues = () => coordinator.productionQueues({ namespace: 'USER', log: new EventLog(store, 'USER', (e) => errors.push(e)), onError: (e) => errors.push(e) });

  it('is what coordinatorFor picks for a store that cannot be shared', () => {
    expect(coordinatorFor(store, { onError: (e) => errors.push(e) })).toBeInstanceOf(SingleProcessCoordinator);
  });

  it('is the only live node, holds every lease, runs exclusive work directly and tells nobody', async () => {
    const [self] = await coordinator.liveNodes();
    expect(await coordinator.liveNodes()).toEqual([expect.objectContaining({ nodeId: coordinator.nodeId, pid: process.pid, silentMs: 0 })]);
    expect(await coordinator.listNodes()).toEqual([expect.objectContaining({ nodeId: self!.nodeId })]);
    expect(await coordinator.holdLease('poller:USER/P/Item', 1000)).toBe(true);
    expect(await coordinator.holdLease('poller:USER/P/Item', 1000)).toBe(true);
    expect(await coordinator.exclusively('lifecycle:USER', async () => 'ran')).toBe('ran');
    await expect(coordinator.exclusively('lifecycle:USER', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const heard: unknown[] = [];
    coordinator.listen((event) => heard.push(event));
    coordinator.announce({ type: 'wake', namespace: 'USER', target: 'Echo' });
    expect(heard).toEqual([]);
    expect(coordinator.productionsOutliveShutdown).toBe(false);
  });

  it('gives in-memory queues, and an id at once for a request whose row commits meanwhile', async () => {
    const production = queues();
    expect(production.create('Echo', 2)).toBeInstanceOf(WorkQueue);
    const { id, accepted } = await production.insert(request('Echo'));
    await accepted;
    expect((await store.messages.get('USER', id))?.status).toBe('queued');
  });

  it('puts back what a previous run left unfinished and discards children their unfinished parent sends again', async () => {
    const [parent] = await store.messages.insert([request('Router')]);
    const [child] = await store.messages.insert([request('Echo', parent!)]);
    const [lone] = await store.messages.insert([request('Echo')]);
    const hosts = new Map([
      ['Router', { queue: new WorkQueue() }],
      ['Echo', { queue: new WorkQueue() }],
    ]);
    await queues().resume(hosts);
    expect(hosts.get('Router')!.queue.peekOldest()?.id).toBe(parent);
    expect(hosts.get('Echo')!.queue.depth).toBe(1);
    expect(hosts.get('Echo')!.queue.peekOldest()?.id).toBe(lone);
    expect(await store.messages.get('USER', child!)).toMatchObject({ status: 'discarded', error: 'Sent again by its parent after a restart' });
    await expect.poll(async () => (await store.log.top('USER', 5)).map((e) => e.text)).toContain('Recovered 2 unfinished messages (1 superseded by their parent)');
    expect(errors).toEqual([]);
  });
});
