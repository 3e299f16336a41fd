/** Conformance: queue and message controls (suspended queues, abort, discard, resend links, suspended messages). */
import { describe, expect, it } from 'vitest';
import { isSuspended } from '../../core/message-suspension.ts';
import { newMessage, type Harness } from './harness.ts';

export function describeControls(h: Harness): void {
  describe('controls', () => {
    it('keeps a queue suspended across a reopen until it is resumed; a second suspension keeps the first', async () => {
      let store = h.store();
      expect(await store.controls.suspendQueue('USER', { item: 'Op', suspendedBy: 'ops', suspendedAt: 1_000 })).toBe(true);
      expect(await store.controls.suspendQueue('USER', { item: 'Op', suspendedBy: 'other', suspendedAt: 2_000 })).toBe(false);
      await store.controls.suspendQueue('USER', { item: 'Alpha', suspendedBy: 'ops', suspendedAt: 3_000 });
      store = await h.reopen();
      expect(await store.controls.suspendedQueues('USER')).toEqual([
        { item: 'Alpha', suspendedBy: 'ops', suspendedAt: 3_000 },
        { item: 'Op', suspendedBy: 'ops', suspendedAt: 1_000 },
      ]);
      expect(await store.controls.resumeQueue('USER', 'Op')).toBe(true);
      expect(await store.controls.resumeQueue('USER', 'Op')).toBe(false);
      expect((await store.controls.suspendedQueues('USER')).map((s) => s.item)).toEqual(['Alpha']);
      expect(await store.controls.suspendedQueues('NOPE')).toEqual([]);
      await expect(store.controls.suspendQueue('NOPE', { item: 'Op', suspendedBy: 'ops', suspendedAt: 1 })).rejects.toMatchObject({
        code: 'ERR_NAMESPACE_UNKNOWN',
      });
    });

    it('aborts only requests still queued and claimed by no node', async () => {
      const store = h.store();
      const [queued, claimed, done] = await store.messages.insert([newMessage(), newMessage({ target: 'Other' }), newMessage()]);
      await store.messages.claim('USER', ['Other'], 'node-a', 10, 60_000);
      await store.messages.update([{ id: done!, status: 'completed' }]);
      expect(await store.controls.abort('USER', [queued!, claimed!, done!, 999_999], 'Aborted by ops')).toEqual([queued]);
      const aborted = await store.messages.get('USER', queued!);
      expect(aborted).toMatchObject({ status: 'discarded', error: 'Aborted by ops' });
      expect((await store.messages.get('USER', claimed!))?.status).toBe('delivered');
      expect((await store.messages.get('USER', done!))?.status).toBe('completed');
      expect(await store.messages.unfinished('USER')).toHaveLength(1);
    });

    it('discards requests in error and keeps their error text; leaves other statuses', async () => {
      const store = h.store();
      const [failed, queued] = await store.messages.insert([newMessage(), newMessage()]);
      await store.messages.update([{ id: failed!, status: 'error', error: 'boom' }]);
      expect(await store.controls.discard('USER', [failed!, queued!])).toEqual([failed]);
      expect(await store.messages.get('USER', failed!)).toMatchObject({ status: 'discarded', error: 'boom' });
      expect((await store.messages.get('USER', queued!))?.status).toBe('queued');
    });

    it('lists suspended messages (failed requests nobody waited for), newest first, by target, with counts', async () => {
      const store = h.store();
      const ids = await store.messages.insert([
        newMessage(),
        newMessage({ responseRequired: true }),
        newMessage({ target: 'Other' }),
        newMessage(),
        newMessage(),
      ]);
      const [a, waited, other, b, fine] = ids as [number, number, number, number, number];
      await store.messages.update([
        { id: a, status: 'error', error: 'x' },
        { id: waited, status: 'error', error: 'x' },
        { id: other, status: 'error', error: 'y' },
        { id: b, status: 'error', error: 'z' },
        { id: fine, status: 'completed' },
      ]);
      const all = await store.controls.suspended('USER', { limit: 10 });
      expect(all.map((m) => m.id)).toEqual([b, other, a]);
      expect(all.every(isSuspended)).toBe(true);
      expect((await store.controls.suspended('USER', { target: 'Op', limit: 10 })).map((m) => m.id)).toEqual([b, a]);
      expect((await store.controls.suspended('USER', { beforeId: b, limit: 1 })).map((m) => m.id)).toEqual([other]);
      expect(await store.controls.suspended('USER', { limit: 0 })).toEqual([]);
      expect(await store.controls.suspendedCounts('USER')).toEqual([
        { target: 'Op', count: 2 },
        { target: 'Other', count: 1 },
      ]);
    });

    it('records resends with their original and resolves a suspended original in the same write', async () => {
      const store = h.store();
      const [original, waited, resend, again] = (await store.messages.insert([
        newMessage(),
        newMessage({ responseRequired: true }),
        newMessage(),
        newMessage({ target: 'Other' }),
      ])) as [number, number, number, number];
      await store.messages.update([
        { id: original, status: 'error', error: 'boom' },
        { id: waited, status: 'error', error: 'boom' },
      ]);
      await store.controls.recordResends('USER', [
        { resendId: resend, originalId: original, target: 'Op', edited: false, user: 'ops', createdAt: 5_000 },
        { resendId: again, originalId: original, target: 'Other', edited: true, user: 'ops', createdAt: 6_000 },
      ]);
      expect(await store.messages.get('USER', original)).toMatchObject({ status: 'discarded', error: 'boom' });
      const links = await store.controls.links('USER', original);
      expect(links.resentFrom).toBeNull();
      expect(links.resends).toEqual([
        { resendId: resend, originalId: original, target: 'Op', edited: false, user: 'ops', createdAt: 5_000 },
        { resendId: again, originalId: original, target: 'Other', edited: true, user: 'ops', createdAt: 6_000 },
      ]);
      expect((await store.controls.links('USER', again)).resentFrom).toMatchObject({ originalId: original, edited: true });
      // A failed request whose caller waited is not suspended: a resend of it leaves it in error.
      const [resendOfWaited] = await store.messages.insert([newMessage()]);
      await store.controls.recordResends('USER', [
        { resendId: resendOfWaited!, originalId: waited, target: 'Op', edited: false, user: 'ops', createdAt: 7_000 },
      ]);
      expect((await store.messages.get('USER', waited))?.status).toBe('error');
      expect(await store.controls.links('NOPE', original)).toEqual({ resentFrom: null, resends: [] });
    });
  });
}
