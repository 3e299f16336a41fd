/** Conformance: alerts (record with counted repeats, list, acknowledge, durability). */
import { describe, expect, it } from 'vitest';
import type { AlertOccurrence } from '../alerts.ts';
import type { Harness } from './harness.ts';

function occurrence(overrides: Partial<AlertOccurrence> = {}): AlertOccurrence {
  return { source: 'Op', category: 'failure', key: 'boom', text: 'Item Op failed on message 1: boom', time: 1_000, ...overrides };
}

export function describeAlerts(h: Harness): void {
  describe('alerts', () => {
    it('opens an alert, then counts repeats of the same source, category and key into it', async () => {
      const store = h.store();
      const first = await store.alerts.record('USER', occurrence());
      expect(first).toMatchObject({ namespace: 'USER', source: 'Op', category: 'failure', key: 'boom', count: 1, firstTime: 1_000, lastTime: 1_000 });
      expect(first.acknowledged).toBe(false);
      const again = await store.alerts.record('USER', occurrence({ time: 2_000, text: 'Item Op failed on message 2: boom' }));
      expect(again).toMatchObject({ id: first.id, count: 2, firstTime: 1_000, lastTime: 2_000, text: 'Item Op failed on message 2: boom' });
      const other = await store.alerts.record('USER', occurrence({ key: 'other', time: 3_000 }));
      expect(other.id).not.toBe(first.id);
      expect((await store.alerts.list('USER', { limit: 10 })).map((alert) => [alert.id, alert.count])).toEqual([
        [other.id, 1],
        [first.id, 2],
      ]);
    });

    it('counts concurrent records of one key into a single alert', async () => {
      const store = h.store();
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.alerts.record('USER', occurrence({ time: 1_000 + i }))));
      const alerts = await store.alerts.list('USER', { limit: 10 });
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ count: 20, firstTime: 1_000, lastTime: 1_019 });
    });

    it('acknowledges open alerts once; the next occurrence opens a new alert', async () => {
      const store = h.store();
      const alert = await store.alerts.record('USER', occurrence());
      expect(await store.alerts.acknowledge('USER', [alert.id, 999_999], 'ops', 5_000)).toBe(1);
      expect(await store.alerts.acknowledge('USER', [alert.id], 'ops', 6_000)).toBe(0);
      const [acknowledged] = await store.alerts.list('USER', { acknowledged: true, limit: 10 });
      expect(acknowledged).toMatchObject({ id: alert.id, acknowledged: true, acknowledgedBy: 'ops', acknowledgedAt: 5_000 });
      const reopened = await store.alerts.record('USER', occurrence({ time: 7_000 }));
      expect(reopened.id).not.toBe(alert.id);
      expect(reopened.count).toBe(1);
      expect((await store.alerts.list('USER', { acknowledged: false, limit: 10 })).map((a) => a.id)).toEqual([reopened.id]);
      expect(await store.alerts.list('USER', { limit: 0 })).toEqual([]);
    });

    it('keeps alerts per namespace: unknown namespaces read empty and refuse writes', async () => {
      const store = h.store();
      await store.alerts.record('USER', occurrence());
      expect(await store.alerts.list('NOPE', { limit: 10 })).toEqual([]);
      await expect(store.alerts.record('NOPE', occurrence())).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
      await store.namespaces.create('OTHER');
      expect(await store.alerts.list('OTHER', { limit: 10 })).toEqual([]);
      expect(await store.alerts.acknowledge('OTHER', [1], 'ops', 1)).toBe(0);
    });

    it('survives a reopen with its count and acknowledgement', async () => {
      const store = h.store();
      const alert = await store.alerts.record('USER', occurrence());
      await store.alerts.record('USER', occurrence({ time: 2_000 }));
      await store.alerts.acknowledge('USER', [alert.id], 'ops', 3_000);
      const reopened = await h.reopen();
      expect(await reopened.alerts.list('USER', { limit: 10 })).toEqual([
        expect.objectContaining({ id: alert.id, count: 2, acknowledged: true, acknowledgedBy: 'ops', lastTime: 2_000 }),
      ]);
    });
  });
}
