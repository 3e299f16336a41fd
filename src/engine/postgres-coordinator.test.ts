/** The PostgreSQL coordinator against a real database, two coordinators (two nodes) in one process. */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import type { NewMessage, Store } from '../store/store.ts';
import { openStore } from '../store/open-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from '../store/postgres/pg-test-support.ts';
import { ClaimingQueue } from './claiming-queue.ts';
import { coordinatorFor } from './choose-coordinator.ts';
import type { ClusterEvent } from './coordinator.ts';
import { EventLog } from './event-log.ts';
import { stringRequest } from './native-messages.ts';
import { PostgresCoordinator } from './postgres-coordinator.ts';
import { WorkQueue } from './work-queue.ts';

const request: NewMessage = {
  namespace: 'USER',
  sessionId: null,
  parentId: null,
  correspondingId: null,
  kind: 'request',
  source: 'Tester',
  target: 'Echo',
  responseRequired: false,
  status: 'queued',
  priority: 0,
  description: '',
  body: stringRequest('x'),
};

describePg('PostgresCoordinator', () => {
  const schema = uniqueSchema('coordinator');
  const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  let store: Store;
  let a: PostgresCoordinator;
  let b: PostgresCoordinator;
  const errors: unknown[] = [];
  afterAll(() => dropSchema(schema));

  beforeEach(async () => {
    store = await openStore({ url });
    errors.length = 0;
    const open = () => new PostgresCoordinator(store, store.cluster!, { leaseMs: 1000, onError: (e) => errors.push(e) });
    a = open();
    b = open();
    await a.start();
    await b.start();
  });

  afterEach(async () => {
    await a.stop();
    await b.stop();
    await store.close();
  });

  it('is what coordinatorFor picks for a shared store, and keeps productions running past a shutdown', () => {
    expect(coordinatorFor(store, { onError: (e) => errors.push(e) })).toBeInstanceOf(PostgresCoordinator);
    expect(a.productionsOutliveShutdown).toBe(true);
  });

  it('sees both nodes live, carries announcements to every listener and forgets a node that stopped', async () => {
    expect((await a.liveNodes()).map((n) => n.nodeId).sort()).toEqual([a.nodeId, b.nodeId].sort());
    const heard: Array<ClusterEvent | null> = [];
    b.listen((event) => heard.push(event));
    const heardByA: Array<ClusterEvent | null> = [];
    a.listen((event) => heardByA.push(event));
    const event: ClusterEvent = { type: 'wake', namespace: 'USER', target: 'Echo' };
    // A burst of wake-ups for one queue in one turn is one notification; the sender does not hear its own.
    a.announce(event);
    a.announce(event);
    const reply: ClusterEvent = { type: 'reply', namespace: 'USER', requestId: 7, responseId: null, error: null };
    a.announce(reply);
    await expect.poll(() => heard).toEqual([reply, event]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([reply, event]);
    expect(heardByA).toEqual([]);
    await b.stop();
    expect((await a.listNodes()).map((n) => n.nodeId)).toEqual([a.nodeId]);
    await b.start();
    expect(errors).toEqual([]);
  });

  it('lets one node at a time hold a lease and run exclusive work; a busy holder makes the other wait, then refuse', async () => {
    expect(await a.holdLease('poller:USER/P/Tick', 5000)).toBe(true);
    expect(await b.holdLease('poller:USER/P/Tick', 5000)).toBe(false);
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = a.exclusively('lifecycle:USER', async () => {
      order.push('a in');
      await held;
      order.push('a out');
    });
    await expect.poll(() => order).toEqual(['a in']);
    const refused = await b.exclusively('lifecycle:USER', async () => order.push('b too early'), 200).catch((e: unknown) => e);
    expect(isConveyorError(refused, 'ERR_PRODUCTION_BUSY'), String(refused)).toBe(true);
    const second = b.exclusively('lifecycle:USER', async () => order.push('b'));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a in', 'a out', 'b']);
  });

  it('keeps the lease of exclusive work that outlasts its time to live', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const long = a.exclusively('lifecycle:LONG', () => held, 10_000, 300);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await b.holdLease('lifecycle:LONG', 300)).toBe(false);
    release();
    await long;
    expect(await b.holdLease('lifecycle:LONG', 300)).toBe(true);
  });

  it('writes a request already claimed by this node when its queue here has room, and hands it over on push', async () => {
    const queues = a.productionQueues({ namespace: 'USER', log: new EventLog(store, 'USER', (e) => errors.push(e)), onError: (e) => errors.push(e) });
    const queue = queues.create('Echo', 1) as ClaimingQueue;
    const waiting = queue.take();
    await expect.poll(() => queue.reserveLocal() && (queue.cancelReservation(), true)).toBe(true);
    // Handed over before its row commits (ids are drawn ahead): read once it is accepted.
    const { id, accepted } = await queues.insert(request);
    await accepted;
    expect(await store.messages.get('USER', id)).toMatchObject({ status: 'delivered', leaseOwner: a.nodeId });
    queue.push((await store.messages.get('USER', id))!);
    expect((await waiting)?.id).toBe(id);
    queue.close();
    queues.close();
    expect(errors).toEqual([]);
  });

  it('queues by claiming from the store, and puts back what a dead node held once its lease expired', async () => {
    const queues = a.productionQueues({ namespace: 'USER', log: new EventLog(store, 'USER', (e) => errors.push(e)), onError: (e) => errors.push(e) });
    const queue = queues.create('Echo', 1);
    expect(queue).toBeInstanceOf(ClaimingQueue);
    queue.close();
    const { id, accepted } = await queues.insert(request);
    await accepted;
    const [claimed] = await store.messages.claim('USER', ['Echo'], 'dead-node', 1, 50);
    expect(claimed?.id).toBe(id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await queues.resume(new Map([['Echo', { queue: new WorkQueue() }]]));
    queues.close();
    expect(await store.messages.get('USER', id)).toMatchObject({ status: 'queued', leaseOwner: null });
    expect(errors).toEqual([]);
  });
});
