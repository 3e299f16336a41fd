/** Conformance: the event log (append, top, since, search). */
import { describe, expect, it } from 'vitest';
import { isStrictlyIncreasing, newLogEntry, type Harness } from './harness.ts';

export function describeLog(h: Harness): void {
  describe('event log', () => {
    it('round-trips every field, including nulls and unicode', async () => {
      const store = h.store();
      const before = Date.now();
      const entries = [
        newLogEntry(),
        newLogEntry({
          type: 'Error',
          configName: 'Öp',
          job: '',
          messageId: 12,
          sessionId: 10,
          sourceClass: 'bo.Op',
          sourceMethod: 'on_message',
          text: 'fail: ✗ "quoted"\nline 2',
        }),
      ];
      const ids = await store.log.append('USER', entries);
      expect(isStrictlyIncreasing(ids)).toBe(true);
      const top = await store.log.top('USER', 10);
      expect(top).toEqual([
        { id: ids[1], namespace: 'USER', ...entries[1], timeLogged: expect.any(Number) },
        { id: ids[0], namespace: 'USER', ...entries[0], timeLogged: expect.any(Number) },
      ]);
      expect(top[0]!.timeLogged).toBeGreaterThanOrEqual(before);
      expect(await store.log.append('USER', [])).toEqual([]);
    });

    it('gives 1,000 concurrent appends distinct, increasing ids', async () => {
      const store = h.store();
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => store.log.append('USER', [newLogEntry({ text: `e${i}` })])));
      const ids = results.map((r) => r[0]!);
      expect(new Set(ids).size).toBe(1000);
      expect(isStrictlyIncreasing(ids)).toBe(true);
      const all = await store.log.since('USER', 0, 2000);
      expect(all.map((e) => e.text)).toEqual(Array.from({ length: 1000 }, (_, i) => `e${i}`));
    });

    it('serves top newest first and since ascending, both limited', async () => {
      const store = h.store();
      const ids = await store.log.append(
        'USER',
        Array.from({ length: 10 }, (_, i) => newLogEntry({ text: `e${i}` })),
      );
      expect((await store.log.top('USER', 3)).map((e) => e.id)).toEqual([ids[9], ids[8], ids[7]]);
      expect((await store.log.since('USER', ids[4]!, 3)).map((e) => e.id)).toEqual([ids[5], ids[6], ids[7]]);
      expect((await store.log.since('USER', ids[9]!, 3)).map((e) => e.id)).toEqual([]);
      expect((await store.log.since('USER', 0, 100)).map((e) => e.id)).toEqual(ids);
      expect(await store.log.top('USER', 0)).toEqual([]);
      expect(await store.log.top('NOPE', 5)).toEqual([]);
      expect(await store.log.since('NOPE', 0, 5)).toEqual([]);
    });

    it('searches by type, config name, text, session and beforeId, newest first', async () => {
      const store = h.store();
      const ids = await store.log.append('USER', [
        newLogEntry({ type: 'Info', configName: 'A', text: 'Started A' }),
        newLogEntry({ type: 'Error', configName: 'B', text: 'Failed B', sessionId: 5 }),
        newLogEntry({ type: 'Error', configName: 'A', text: 'failed a', sessionId: 5 }),
        newLogEntry({ type: 'Warning', configName: 'B', text: 'careful 100%' }),
      ]);
      const [i0, i1, i2, i3] = ids as [number, number, number, number];
      const search = async (query: Record<string, unknown>) => (await store.log.search('USER', { limit: 100, ...query })).map((e) => e.id);
      expect(await search({})).toEqual([i3, i2, i1, i0]);
      expect(await search({ type: 'Error' })).toEqual([i2, i1]);
      expect(await search({ configName: 'A' })).toEqual([i2, i0]);
      expect(await search({ text: 'Failed' })).toEqual([i1]);
      expect(await search({ text: '100%' })).toEqual([i3]);
      expect(await search({ sessionId: 5 })).toEqual([i2, i1]);
      expect(await search({ beforeId: i2 })).toEqual([i1, i0]);
      expect(await search({ type: 'Error', configName: 'A', sessionId: 5 })).toEqual([i2]);
      expect(await search({ limit: 2 })).toEqual([i3, i2]);
      expect(await search({ limit: 0 })).toEqual([]);
      expect(await store.log.search('NOPE', { limit: 5 })).toEqual([]);
    });

    it('refuses appends into an unknown namespace', async () => {
      await expect(h.store().log.append('NOPE', [newLogEntry()])).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });
  });
}
