/** Conformance: retention policies, purges of messages and log entries in batches, usage and reclaim. */
import { describe, expect, it } from 'vitest';
import type { MessageStatus } from '../../core/message.ts';
import type { NewMessage, PurgeBatch, PurgePosition, Store } from '../store.ts';
import { clockPast, newLogEntry, newMessage, type Harness } from './harness.ts';

/** Inserts a message and sets its status (the store inserts a request as given, then the engine patches it). */
async function stored(store: Store, status: MessageStatus, overrides: Partial<NewMessage> = {}): Promise<number> {
  const [id] = await store.messages.insert([newMessage({ status: 'queued', ...overrides })]);
  if (status !== 'queued') await store.messages.update([{ id: id!, status, ...(status === 'error' ? { error: 'failed' } : {}) }]);
  return id!;
}

/**
 * A bound after everything written so far: what came before is "older". The clock first moves past the
 * millisecond of the last write, which the purge's `created_at < bound` would otherwise leave out.
 */
async function boundNow(): Promise<number> {
  await clockPast(Date.now());
  const bound = Date.now();
  await clockPast(bound);
  return bound;
}

/** Runs batches of `limit` until `next` is null; returns every batch. */
async function walk(run: (after: PurgePosition | null) => Promise<PurgeBatch>): Promise<PurgeBatch[]> {
  const batches: PurgeBatch[] = [];
  let after: PurgePosition | null = null;
  for (;;) {
    const batch = await run(after);
    batches.push(batch);
    if (batch.next === null) return batches;
    after = batch.next;
  }
}

const sum = (batches: PurgeBatch[], field: 'count' | 'bodies' | 'bytes'): number => batches.reduce((total, batch) => total + batch[field], 0);

export function describeRetention(h: Harness): void {
  describe('retention', () => {
    it('stores one policy per namespace, lists them by namespace and removes one with null', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      expect(await store.retention.getPolicy('USER')).toBeNull();
      await store.retention.putPolicy('USER', { messageDays: 7, logDays: 30, maxStoreBytes: null });
      await store.retention.putPolicy('OTHER', { messageDays: null, logDays: 0.5, maxStoreBytes: 5_000_000_000 });
      await store.retention.putPolicy('USER', { messageDays: 14, logDays: 30, maxStoreBytes: 1_000_000 });
      expect(await store.retention.getPolicy('USER')).toEqual({ messageDays: 14, logDays: 30, maxStoreBytes: 1_000_000 });
      expect(await store.retention.policies()).toEqual([
        { namespace: 'OTHER', policy: { messageDays: null, logDays: 0.5, maxStoreBytes: 5_000_000_000 } },
        { namespace: 'USER', policy: { messageDays: 14, logDays: 30, maxStoreBytes: 1_000_000 } },
      ]);
      await store.retention.putPolicy('OTHER', null);
      expect(await store.retention.getPolicy('OTHER')).toBeNull();
      expect((await store.retention.policies()).map((entry) => entry.namespace)).toEqual(['USER']);
      // The policy survives a reopen.
      const reopened = await h.reopen();
      expect(await reopened.retention.getPolicy('USER')).toEqual({ messageDays: 14, logDays: 30, maxStoreBytes: 1_000_000 });
    });

    it('reads no policy in an unknown namespace and refuses to store one there', async () => {
      const store = h.store();
      expect(await store.retention.getPolicy('NOPE')).toBeNull();
      await expect(store.retention.putPolicy('NOPE', { messageDays: 1, logDays: null, maxStoreBytes: null })).rejects.toMatchObject({
        code: 'ERR_NAMESPACE_UNKNOWN',
      });
      expect(await store.retention.purgeMessages('NOPE', Date.now() + 1000, { limit: 10, dryRun: false, after: null })).toEqual({
        count: 0,
        bodies: 0,
        bytes: 0,
        next: null,
      });
    });

    it('purges finished messages older than the bound with their bodies, and keeps newer, queued, in-progress and suspended ones', async () => {
      const store = h.store();
      const completed = await stored(store, 'completed');
      const discarded = await stored(store, 'discarded');
      // A failure its caller was told of is finished; one nobody waited for is suspended (kept aside for an operator).
      const failedTold = await stored(store, 'error', { responseRequired: true });
      const suspended = await stored(store, 'error', { responseRequired: false });
      const queued = await stored(store, 'queued');
      const inProgress = await stored(store, 'delivered');
      const [response] = await store.messages.insert([newMessage({ kind: 'response', status: 'completed', sessionId: completed })]);
      const bound = await boundNow();
      const newer = await stored(store, 'completed');

      const dry = await store.retention.purgeMessages('USER', bound, { limit: 100, dryRun: true, after: null });
      expect(dry.count).toBe(4);
      expect(dry.bodies).toBe(4);
      expect(dry.bytes).toBeGreaterThan(4 * '{"n":1}'.length);
      expect(dry.next).toBeNull();
      expect(await store.messages.get('USER', completed)).not.toBeNull();

      const real = await store.retention.purgeMessages('USER', bound, { limit: 100, dryRun: false, after: null });
      expect(real).toEqual(dry);
      for (const id of [completed, discarded, failedTold, response!]) expect(await store.messages.get('USER', id)).toBeNull();
      for (const id of [suspended, queued, inProgress, newer]) expect(await store.messages.get('USER', id)).not.toBeNull();
      expect((await store.messages.get('USER', newer))?.body.data).toBe('{"n":1}');
      expect(await store.messages.count('USER')).toBe(4);
      // Nothing more to take.
      expect((await store.retention.purgeMessages('USER', bound, { limit: 100, dryRun: false, after: null })).count).toBe(0);
    });

    it('keeps every message of a session while one of its messages is queued, in progress or suspended', async () => {
      const store = h.store();
      const liveSessions: number[] = [];
      for (const status of ['queued', 'delivered'] as const) {
        const root = await stored(store, 'completed');
        await stored(store, 'completed', { sessionId: root, parentId: root });
        await stored(store, status, { sessionId: root, parentId: root });
        liveSessions.push(root);
      }
      const suspendedRoot = await stored(store, 'completed');
      await stored(store, 'error', { sessionId: suspendedRoot, parentId: suspendedRoot, responseRequired: false });
      liveSessions.push(suspendedRoot);
      const doneRoot = await stored(store, 'completed');
      await stored(store, 'completed', { sessionId: doneRoot, parentId: doneRoot });
      const bound = await boundNow();

      const purged = await store.retention.purgeMessages('USER', bound, { limit: 100, dryRun: false, after: null });
      expect(purged.count).toBe(2);
      expect(await store.messages.session('USER', doneRoot)).toEqual([]);
      for (const session of liveSessions) expect((await store.messages.session('USER', session)).length).toBeGreaterThanOrEqual(2);

      // Once the session's work is over, it goes too.
      const [queuedOne] = (await store.messages.session('USER', liveSessions[0]!)).filter((m) => m.status === 'queued');
      await store.messages.update([{ id: queuedOne!.id, status: 'completed' }]);
      expect((await store.retention.purgeMessages('USER', bound, { limit: 100, dryRun: false, after: null })).count).toBe(3);
      expect(await store.messages.session('USER', liveSessions[0]!)).toEqual([]);
    });

    it('walks in batches of at most `limit`, oldest first, and the dry run walks the same rows', async () => {
      const store = h.store();
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) {
        ids.push(await stored(store, 'completed'));
        if (i === 3) ids.push(await stored(store, 'queued'));
      }
      const bound = await boundNow();
      const dry = await walk((after) => store.retention.purgeMessages('USER', bound, { limit: 3, dryRun: true, after }));
      expect(dry.map((batch) => batch.count)).toEqual([3, 3, 1]);
      expect(await store.messages.count('USER')).toBe(8);
      const real = await walk((after) => store.retention.purgeMessages('USER', bound, { limit: 3, dryRun: false, after }));
      expect(real.map((batch) => batch.count)).toEqual([3, 3, 1]);
      expect(sum(real, 'bytes')).toBe(sum(dry, 'bytes'));
      const left = await store.messages.search('USER', { limit: 10 });
      expect(left.map((m) => m.status)).toEqual(['queued']);
    });

    it('leaves other namespaces alone', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      await stored(store, 'completed');
      const [other] = await store.messages.insert([newMessage({ namespace: 'OTHER', status: 'completed' })]);
      await store.log.append('OTHER', [newLogEntry()]);
      const bound = await boundNow();
      expect((await store.retention.purgeMessages('USER', bound, { limit: 10, dryRun: false, after: null })).count).toBe(1);
      expect((await store.retention.purgeLog('USER', bound, { limit: 10, dryRun: false, after: null })).count).toBe(0);
      expect(await store.messages.get('OTHER', other!)).not.toBeNull();
      expect(await store.log.top('OTHER', 10)).toHaveLength(1);
    });

    it('purges log entries logged before the bound, in batches, and keeps newer ones', async () => {
      const store = h.store();
      await store.log.append(
        'USER',
        Array.from({ length: 5 }, (_, i) => newLogEntry({ text: `old ${i}` })),
      );
      const bound = await boundNow();
      await store.log.append('USER', [newLogEntry({ text: 'new' })]);
      const dry = await walk((after) => store.retention.purgeLog('USER', bound, { limit: 2, dryRun: true, after }));
      expect(dry.map((batch) => batch.count)).toEqual([2, 2, 1]);
      expect(sum(dry, 'bytes')).toBeGreaterThan(5 * 'old 0'.length);
      const real = await walk((after) => store.retention.purgeLog('USER', bound, { limit: 2, dryRun: false, after }));
      expect(sum(real, 'count')).toBe(5);
      expect(sum(real, 'bodies')).toBe(0);
      expect((await store.log.top('USER', 10)).map((entry) => entry.text)).toEqual(['new']);
    });

    it('measures the namespace: counts, oldest message and log entry, and the store size', async () => {
      const store = h.store();
      const empty = await store.retention.usage('USER');
      expect(empty).toMatchObject({ messages: 0, oldestMessage: null, logEntries: 0, oldestLogEntry: null });
      expect(empty.storeBytes).toBeGreaterThan(0);
      const first = await stored(store, 'completed');
      await stored(store, 'queued');
      await store.log.append('USER', [newLogEntry(), newLogEntry()]);
      const usage = await store.retention.usage('USER');
      const oldest = (await store.messages.get('USER', first))!.createdAt;
      expect(usage).toMatchObject({ messages: 2, oldestMessage: oldest, logEntries: 2 });
      expect(usage.oldestLogEntry).toBeGreaterThanOrEqual(oldest - 1000);
      expect(['incremental', 'reuse', 'vacuum']).toContain(usage.reclaim);
      expect(await store.retention.usage('NOPE')).toMatchObject({ messages: 0, oldestMessage: null, logEntries: 0, oldestLogEntry: null });
    });

    it('reclaims the space of purged rows without losing what is kept', async () => {
      const store = h.store();
      const big = 'x'.repeat(100_000);
      for (let i = 0; i < 20; i++) await stored(store, 'completed', { body: { classname: 'msg.Big', encoding: 'json', data: JSON.stringify({ big }) } });
      const kept = await stored(store, 'queued');
      const bound = await boundNow();
      const purged = await walk((after) => store.retention.purgeMessages('USER', bound, { limit: 5, dryRun: false, after }));
      expect(sum(purged, 'count')).toBe(20);
      expect(sum(purged, 'bytes')).toBeGreaterThan(20 * 100_000);
      let reclaimed = 0;
      for (let round = 0; round < 1000; round++) {
        const step = await store.retention.reclaim(64);
        reclaimed += step.bytes;
        if (!step.more) break;
      }
      const usage = await store.retention.usage('USER');
      if (usage.reclaim === 'incremental') {
        expect(reclaimed).toBeGreaterThan(1_000_000);
        expect(usage.freeBytes).toBe(0);
      }
      expect(reclaimed).toBeGreaterThanOrEqual(0);
      expect((await store.messages.get('USER', kept))?.status).toBe('queued');
    });
  });
}
