/**
 * Several nodes on one database: each "node" is its own store (its own pool and connections) on the
 * same schema, as separate server processes would be.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newLogEntry, newMessage } from '../conformance/harness.ts';
import type { Store } from '../store.ts';
import { openPostgresStore } from './postgres-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema, waitFor } from './pg-test-support.ts';

describePg('PostgreSQL store: several nodes at once', () => {
  let schema: string;
  let nodes: Store[];

  beforeEach(async () => {
    schema = uniqueSchema();
    nodes = [];
    for (let n = 0; n < 3; n += 1) nodes.push(await openPostgresStore(pgUrl, { schema, poolSize: 4 }));
  });

  afterEach(async () => {
    await Promise.all(nodes.map((node) => node.close()));
    await dropSchema(schema);
  });

  it('gives concurrent claimers disjoint messages, and every message to someone', async () => {
    const inserted = await nodes[0]!.messages.insert(Array.from({ length: 300 }, (_, n) => newMessage({ target: n % 2 === 0 ? 'Op' : 'Op2' })));
    const claimedBy = nodes.map(() => [] as number[]);
    // Two claim loops per node, like two idle jobs polling at once.
    await Promise.all(
      nodes.flatMap((node, n) =>
        [0, 1].map(async () => {
          for (;;) {
            const batch = await node.messages.claim('USER', ['Op', 'Op2'], `node-${n}`, 7, 60_000);
            if (batch.length === 0) return;
            for (const claimed of batch) {
              expect(claimed.leaseOwner).toBe(`node-${n}`);
              claimedBy[n]!.push(claimed.id);
            }
          }
        }),
      ),
    );
    const all = claimedBy.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort((a, b) => a - b)).toEqual(inserted);
    expect(claimedBy.filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
    const depths = await nodes[2]!.messages.queueDepths('USER');
    expect(depths).toEqual([
      expect.objectContaining({ target: 'Op', queued: 0, delivered: 150 }),
      expect.objectContaining({ target: 'Op2', queued: 0, delivered: 150 }),
    ]);
  });

  it('lets another node take over the messages of a node whose leases expired', async () => {
    const [a, b] = nodes as [Store, Store];
    const ids = await a.messages.insert([newMessage(), newMessage(), newMessage()]);
    const held = await a.messages.claim('USER', ['Op'], 'node-a', 10, 200);
    expect(held.map((m) => m.id)).toEqual(ids);
    // Node a "dies": it never extends. While its leases run, nothing is released or claimable.
    expect(await b.messages.claim('USER', ['Op'], 'node-b', 10, 60_000)).toEqual([]);
    const expiry = Math.max(...held.map((m) => m.leaseUntil!));
    await waitFor(() => Date.now() > expiry, 5_000, 'the leases to expire');
    expect(await b.messages.releaseExpired('USER', Date.now())).toBe(3);
    const taken = await b.messages.claim('USER', ['Op'], 'node-b', 10, 60_000);
    expect(taken.map((m) => m.id)).toEqual(ids);
    expect(taken.every((m) => m.leaseOwner === 'node-b' && m.status === 'delivered')).toBe(true);
    // The old owner finds out it lost them when it tries to extend.
    expect(await a.messages.extendLeases(ids, 'node-a', 60_000)).toEqual([]);
    expect(await b.messages.extendLeases(ids, 'node-b', 60_000)).toEqual(ids);
  });

  it('releases expired leases once even when several nodes sweep at the same time', async () => {
    await nodes[0]!.messages.insert(Array.from({ length: 20 }, () => newMessage()));
    const held = await nodes[0]!.messages.claim('USER', ['Op'], 'node-a', 20, 100);
    await waitFor(() => Date.now() > Math.max(...held.map((m) => m.leaseUntil!)), 5_000, 'the leases to expire');
    const released = await Promise.all(nodes.map((node) => node.messages.releaseExpired('USER', Date.now())));
    expect(released.reduce((sum, n) => sum + n, 0)).toBe(20);
  });

  it('keeps log ids increasing in commit order: since() polling misses nothing while two nodes append', async () => {
    const [a, b, reader] = nodes as [Store, Store, Store];
    const appended: number[] = [];
    let writing = true;
    const seen: number[] = [];
    const poll = (async () => {
      let last = 0;
      for (;;) {
        const done = !writing;
        const page = await reader.log.since('USER', last, 1000);
        for (const row of page) {
          expect(row.id).toBeGreaterThan(last);
          last = row.id;
          seen.push(row.id);
        }
        if (done && page.length === 0) return;
      }
    })();
    const writer = (node: Store, name: string) =>
      (async () => {
        for (let round = 0; round < 40; round += 1) {
          // Several appends per round, so each node commits batches while the other does too.
          const batches = await Promise.all(
            [0, 1, 2].map((k) => node.log.append('USER', [newLogEntry({ text: `${name} ${round}.${k}` }), newLogEntry({ text: 'x' })])),
          );
          for (const ids of batches) appended.push(...ids);
        }
      })();
    await Promise.all([writer(a, 'a'), writer(b, 'b')]);
    writing = false;
    await poll;
    expect(appended.length).toBe(2 * 40 * 3 * 2);
    expect(seen).toEqual([...appended].sort((x, y) => x - y));
  });

  it('delivers LISTEN/NOTIFY wake-ups between nodes', async () => {
    const [a, b] = nodes as [Store, Store];
    const heard: (string | null)[] = [];
    const unsubscribe = await b.cluster!.subscribe('wake', (payload) => heard.push(payload));
    await a.cluster!.notify('wake', 'USER:Op');
    await a.cluster!.notify('other-channel', 'nobody listens');
    await waitFor(() => heard.length === 1, 5_000, 'the notification');
    expect(heard).toEqual(['USER:Op']);
    await unsubscribe();
    await a.cluster!.notify('wake', 'after unsubscribe');
    await b.cluster!.notify('sync', 'flush');
    expect(heard).toEqual(['USER:Op']);
  });

  it('elects one poller per lease, renews it, and hands it over when the holder stops renewing', async () => {
    const [a, b] = nodes.map((node) => node.cluster!) as [NonNullable<Store['cluster']>, NonNullable<Store['cluster']>];
    // TTLs long enough that a loaded machine cannot let the lease lapse between two steps.
    const contest = await Promise.all([a.tryAcquireLease('USER/poller', 'node-a', 1_500), b.tryAcquireLease('USER/poller', 'node-b', 1_500)]);
    expect(contest.filter(Boolean)).toHaveLength(1);
    const [winner, loser, winnerId, loserId] = contest[0] ? [a, b, 'node-a', 'node-b'] : [b, a, 'node-b', 'node-a'];
    expect(await winner.tryAcquireLease('USER/poller', winnerId, 1_500)).toBe(true);
    expect(await loser.tryAcquireLease('USER/poller', loserId, 1_500)).toBe(false);
    const lease = await loser.getLease('USER/poller');
    expect(lease).toMatchObject({ name: 'USER/poller', owner: winnerId });
    // The winner stops renewing (it died); once the lease lapses the other node takes it.
    await waitFor(() => loser.tryAcquireLease('USER/poller', loserId, 60_000), 10_000, 'the lease to move');
    expect((await winner.getLease('USER/poller'))!.owner).toBe(loserId);
    expect(await winner.tryAcquireLease('USER/poller', winnerId, 300)).toBe(false);
    expect(await winner.releaseLease('USER/poller', winnerId)).toBe(false);
    expect(await loser.releaseLease('USER/poller', loserId)).toBe(true);
    expect(await winner.getLease('USER/poller')).toBeNull();
    expect(await winner.tryAcquireLease('USER/poller', winnerId, 300)).toBe(true);
  });
});
