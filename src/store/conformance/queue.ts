/** Conformance: claiming queued requests, leases, and queue depths. */
import { describe, expect, it } from 'vitest';
import { newMessage, type Harness } from './harness.ts';

export function describeQueues(h: Harness): void {
  describe('messages: claim and leases', () => {
    it('claims queued requests of the given targets, priority first then oldest, up to the limit', async () => {
      const store = h.store();
      const ids = await store.messages.insert([
        newMessage({ target: 'Op' }),
        newMessage({ target: 'Other' }),
        newMessage({ target: 'Op', kind: 'response' }),
        newMessage({ target: 'Op', status: 'completed' }),
        newMessage({ target: 'Op', priority: 5 }),
        newMessage({ target: 'Op2' }),
        newMessage({ target: 'Op' }),
      ]);
      const [oldest, , , , urgent, op2, newest] = ids;
      const before = Date.now();
      const claimed = await store.messages.claim('USER', ['Op', 'Op2'], 'node-a', 3, 60_000);
      expect(claimed.map((m) => m.id)).toEqual([urgent, oldest, op2]);
      for (const message of claimed) {
        expect(message).toMatchObject({ status: 'delivered', leaseOwner: 'node-a' });
        expect(message.leaseUntil).toBeGreaterThanOrEqual(before + 60_000);
        expect(message.body).toEqual(newMessage().body);
        expect(await store.messages.get('USER', message.id)).toEqual(message);
      }
      const next = await store.messages.claim('USER', ['Op', 'Op2'], 'node-b', 10, 60_000);
      expect(next.map((m) => m.id)).toEqual([newest]);
      expect(await store.messages.claim('USER', ['Op', 'Op2'], 'node-b', 10, 60_000)).toEqual([]);
      expect(await store.messages.claim('USER', [], 'node-b', 10, 60_000)).toEqual([]);
      expect(await store.messages.claim('USER', ['Other'], 'node-b', 0, 60_000)).toEqual([]);
    });

    it('keeps the trace context a request was sent with, through get, recovery and a claim', async () => {
      const store = h.store();
      const traceParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const [traced, untraced] = await store.messages.insert([newMessage({ traceParent }), newMessage()]);
      expect((await store.messages.get('USER', traced!))!.traceParent).toBe(traceParent);
      // Untraced messages have no such field at all (not even null).
      expect(await store.messages.get('USER', untraced!)).not.toHaveProperty('traceParent');
      expect((await store.messages.unfinished('USER')).map((m) => m.traceParent)).toEqual([traceParent, undefined]);
      const claimed = await store.messages.claim('USER', ['Op'], 'node-b', 2, 60_000);
      expect(claimed.map((m) => m.traceParent)).toEqual([traceParent, undefined]);
    });

    it('extends only the leases the owner still holds', async () => {
      const store = h.store();
      await store.messages.insert([newMessage(), newMessage(), newMessage()]);
      const mine = (await store.messages.claim('USER', ['Op'], 'node-a', 2, 1_000)).map((m) => m.id);
      const theirs = (await store.messages.claim('USER', ['Op'], 'node-b', 1, 1_000)).map((m) => m.id);
      const before = Date.now();
      expect(await store.messages.extendLeases([...mine, ...theirs, 999_999], 'node-a', 120_000)).toEqual(mine);
      for (const id of mine) expect((await store.messages.get('USER', id))!.leaseUntil).toBeGreaterThanOrEqual(before + 120_000);
      expect((await store.messages.get('USER', theirs[0]!))!.leaseUntil).toBeLessThan(before + 120_000);
      expect(await store.messages.extendLeases([], 'node-a', 1_000)).toEqual([]);
    });

    it('puts expired leases back in the queue so another node can claim them', async () => {
      const store = h.store();
      await store.messages.insert([newMessage(), newMessage()]);
      const claimed = await store.messages.claim('USER', ['Op'], 'node-a', 1, 10_000);
      const until = claimed[0]!.leaseUntil!;
      expect(await store.messages.releaseExpired('USER', until - 1)).toBe(0);
      expect(await store.messages.releaseExpired('USER', until)).toBe(1);
      expect(await store.messages.get('USER', claimed[0]!.id)).toMatchObject({ status: 'queued', leaseOwner: null, leaseUntil: null });
      expect(await store.messages.extendLeases([claimed[0]!.id], 'node-a', 10_000)).toEqual([]);
      const retaken = await store.messages.claim('USER', ['Op'], 'node-b', 5, 10_000);
      expect(retaken.map((m) => m.id)).toContain(claimed[0]!.id);
      expect(retaken.every((m) => m.leaseOwner === 'node-b')).toBe(true);
      expect(await store.messages.releaseExpired('NOPE', Date.now())).toBe(0);
    });

    it('never hands the same message to two concurrent claimers', async () => {
      const store = h.store();
      const ids = await store.messages.insert(Array.from({ length: 40 }, () => newMessage()));
      const claims = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((owner) => store.messages.claim('USER', ['Op'], owner, 15, 60_000)));
      const claimed = claims.flat().map((m) => m.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect([...claimed].sort((a, b) => a - b)).toEqual(ids);
      for (const [index, owner] of ['n1', 'n2', 'n3', 'n4'].entries()) expect(claims[index]!.every((m) => m.leaseOwner === owner)).toBe(true);
    });

    it('does not extend the lease of a message that is no longer delivered', async () => {
      const store = h.store();
      await store.messages.insert([newMessage()]);
      const [claimed] = await store.messages.claim('USER', ['Op'], 'node-a', 1, 1_000);
      await store.messages.update([{ id: claimed!.id, status: 'completed' }]);
      expect(await store.messages.extendLeases([claimed!.id], 'node-a', 60_000)).toEqual([]);
    });

    it('leaves delivered messages without a lease alone when releasing', async () => {
      const store = h.store();
      const [id] = await store.messages.insert([newMessage({ status: 'delivered' })]);
      expect(await store.messages.releaseExpired('USER', Date.now() + 1_000_000)).toBe(0);
      expect((await store.messages.get('USER', id!))!.status).toBe('delivered');
    });

    it('claims only in its own namespace', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      await store.messages.insert([newMessage({ namespace: 'OTHER' })]);
      expect(await store.messages.claim('USER', ['Op'], 'node-a', 10, 1_000)).toEqual([]);
      expect(await store.messages.claim('NOPE', ['Op'], 'node-a', 10, 1_000)).toEqual([]);
      const [claimed] = await store.messages.claim('OTHER', ['Op'], 'node-a', 10, 1_000);
      expect(claimed!.namespace).toBe('OTHER');
    });
  });

  describe('messages: queue depths and count', () => {
    it('counts queued and delivered messages per target with the oldest createdAt', async () => {
      const store = h.store();
      const ids = await store.messages.insert([
        newMessage({ target: 'B' }),
        newMessage({ target: 'A', status: 'delivered' }),
        newMessage({ target: 'A' }),
        newMessage({ target: 'A' }),
        newMessage({ target: 'B', status: 'completed' }),
        newMessage({ target: 'C', status: 'error' }),
        newMessage({ target: 'D', kind: 'response' }),
      ]);
      const created = async (index: number) => (await store.messages.get('USER', ids[index]!))!.createdAt;
      expect(await store.messages.queueDepths('USER')).toEqual([
        { target: 'A', queued: 2, delivered: 1, oldest: await created(1) },
        { target: 'B', queued: 1, delivered: 0, oldest: await created(0) },
        { target: 'D', queued: 1, delivered: 0, oldest: await created(6) },
      ]);
      await store.messages.update(ids.map((id) => ({ id, status: 'completed' as const })));
      expect(await store.messages.queueDepths('USER')).toEqual([]);
      expect(await store.messages.count('USER')).toBe(7);
      expect(await store.messages.queueDepths('NOPE')).toEqual([]);
      expect(await store.messages.count('NOPE')).toBe(0);
    });
  });
}
