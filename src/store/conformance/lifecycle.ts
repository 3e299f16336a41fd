/** Conformance: namespace isolation, close, and durability across a reopen. */
import { describe, expect, it } from 'vitest';
import { newProduction } from '../../core/production.ts';
import type { Store } from '../store.ts';
import { newBinding, newLogEntry, newMessage, type Harness } from './harness.ts';

/** One call of every method of every repository: after close, each must reject with ERR_STORE_CLOSED. */
function everyCall(store: Store): Array<[string, () => Promise<unknown>]> {
  return [
    ['namespaces.list', () => store.namespaces.list()],
    ['namespaces.exists', () => store.namespaces.exists('USER')],
    ['namespaces.create', () => store.namespaces.create('NEW')],
    ['productions.list', () => store.productions.list('USER')],
    ['productions.get', () => store.productions.get('USER', 'P')],
    ['productions.put', () => store.productions.put('USER', newProduction('P'))],
    ['productions.delete', () => store.productions.delete('USER', 'P')],
    ['productions.setState', () => store.productions.setState('USER', 'P', { state: 'running' })],
    ['productions.setAutoStart', () => store.productions.setAutoStart('USER', 'P', true)],
    ['productions.getDefault', () => store.productions.getDefault('USER')],
    ['productions.setDefault', () => store.productions.setDefault('USER', 'P')],
    ['classes.list', () => store.classes.list('USER')],
    ['classes.get', () => store.classes.get('USER', 'C')],
    ['classes.put', () => store.classes.put('USER', newBinding('C'))],
    ['classes.delete', () => store.classes.delete('USER', 'C')],
    ['messages.insert', () => store.messages.insert([newMessage()])],
    ['messages.insert (empty)', () => store.messages.insert([])],
    ['messages.update', () => store.messages.update([{ id: 1, status: 'completed' }])],
    ['messages.update (empty)', () => store.messages.update([])],
    ['messages.get', () => store.messages.get('USER', 1)],
    ['messages.search', () => store.messages.search('USER', { limit: 10 })],
    ['messages.session', () => store.messages.session('USER', 1)],
    ['messages.unfinished', () => store.messages.unfinished('USER')],
    ['messages.claim', () => store.messages.claim('USER', ['Op'], 'n', 1, 1_000)],
    ['messages.extendLeases', () => store.messages.extendLeases([1], 'n', 1_000)],
    ['messages.releaseExpired', () => store.messages.releaseExpired('USER', Date.now())],
    ['messages.queueDepths', () => store.messages.queueDepths('USER')],
    ['messages.count', () => store.messages.count('USER')],
    ['log.append', () => store.log.append('USER', [newLogEntry()])],
    ['log.top', () => store.log.top('USER', 5)],
    ['log.since', () => store.log.since('USER', 0, 5)],
    ['log.search', () => store.log.search('USER', { limit: 5 })],
    ['schemas.list', () => store.schemas.list('USER')],
    ['schemas.get', () => store.schemas.get('USER', 'S')],
    ['schemas.put', () => store.schemas.put('USER', { name: 'S', category: 'c', schema: '{}' })],
    ['schemas.delete', () => store.schemas.delete('USER', 'S')],
    ['transforms.list', () => store.transforms.list('USER')],
    ['transforms.get', () => store.transforms.get('USER', 'T')],
    ['transforms.put', () => store.transforms.put('USER', 'T', 'x')],
    ['transforms.history', () => store.transforms.history('USER', 'T')],
    ['transforms.delete', () => store.transforms.delete('USER', 'T')],
    ['lookups.tables', () => store.lookups.tables('USER')],
    ['lookups.get', () => store.lookups.get('USER', 'L')],
    ['lookups.put', () => store.lookups.put('USER', 'L', { a: 'b' })],
    ['lookups.delete', () => store.lookups.delete('USER', 'L')],
    ['lookups.putMany', () => store.lookups.putMany('USER', { L: { a: 'b' } })],
    ['settingsMigrations.stageSwap', () => store.settingsMigrations.stageSwap({ id: 'x', owner: 'o', folder: '/f', packageName: 'p', staging: '/f/s' })],
    ['settingsMigrations.commit', () => store.settingsMigrations.commit('USER', { classes: [], schemas: [], productions: [] }, null)],
    ['settingsMigrations.swaps', () => store.settingsMigrations.swaps('o')],
    ['settingsMigrations.forgetSwap', () => store.settingsMigrations.forgetSwap('x')],
  ];
}

export function describeLifecycle(h: Harness): void {
  describe('namespace isolation', () => {
    it('never shows one namespace the data of another, even under the same names', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      await store.productions.put('USER', newProduction('P', [], { description: 'user' }));
      await store.productions.setDefault('USER', 'P');
      await store.classes.put('USER', newBinding('C'));
      const [messageId] = await store.messages.insert([newMessage()]);
      const [logId] = await store.log.append('USER', [newLogEntry()]);
      await store.schemas.put('USER', { name: 'S', category: 'c', schema: '{}' });
      await store.transforms.put('USER', 'T', 'user');
      await store.lookups.put('USER', 'L', { k: 'user' });

      expect(await store.productions.list('OTHER')).toEqual([]);
      expect(await store.productions.getDefault('OTHER')).toBeNull();
      expect(await store.classes.list('OTHER')).toEqual([]);
      expect(await store.messages.get('OTHER', messageId!)).toBeNull();
      expect(await store.messages.search('OTHER', { limit: 10 })).toEqual([]);
      expect(await store.messages.session('OTHER', messageId!)).toEqual([]);
      expect(await store.messages.unfinished('OTHER')).toEqual([]);
      expect(await store.messages.queueDepths('OTHER')).toEqual([]);
      expect(await store.log.top('OTHER', 10)).toEqual([]);
      expect(await store.log.since('OTHER', 0, 10)).toEqual([]);
      expect(await store.log.search('OTHER', { limit: 10 })).toEqual([]);
      expect(await store.schemas.list('OTHER')).toEqual([]);
      expect(await store.transforms.list('OTHER')).toEqual([]);
      expect(await store.lookups.tables('OTHER')).toEqual([]);

      await store.productions.put('OTHER', newProduction('P', [], { description: 'other' }));
      await store.transforms.put('OTHER', 'T', 'other');
      await store.lookups.put('OTHER', 'L', { k: 'other' });
      await store.productions.delete('OTHER', 'P');
      await store.transforms.delete('OTHER', 'T');
      expect((await store.productions.get('USER', 'P'))!.definition.description).toBe('user');
      expect(await store.productions.getDefault('USER')).toBe('P');
      expect((await store.transforms.get('USER', 'T'))!.source).toBe('user');
      expect(await store.lookups.get('USER', 'L')).toEqual({ k: 'user' });
      expect(await store.lookups.get('OTHER', 'L')).toEqual({ k: 'other' });
      expect((await store.log.top('USER', 10)).map((e) => e.id)).toEqual([logId]);
    });
  });

  describe('close', () => {
    it('rejects every call with ERR_STORE_CLOSED once closed', async () => {
      const store = h.store();
      await store.close();
      await store.close();
      for (const [name, call] of everyCall(store)) {
        await expect(call(), name).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
      }
    });
  });

  describe('durability', () => {
    it('keeps every write that resolved, and every write accepted before close, across a reopen', async () => {
      const store = h.store();
      await store.namespaces.create('OTHER');
      await store.productions.put('OTHER', newProduction('P'));
      const acknowledged = await store.messages.insert([newMessage(), newMessage({ namespace: 'OTHER' })]);
      const logIds = await store.log.append('USER', [newLogEntry({ text: 'kept' })]);
      // Accepted but not awaited: close() must wait for their commit.
      const inFlight = Array.from({ length: 50 }, (_, i) => store.messages.insert([newMessage({ description: `late ${i}` })]));
      const inFlightPatch = store.messages.update([{ id: acknowledged[0]!, status: 'completed' }]);
      await store.close();
      const lateIds = (await Promise.all(inFlight)).map((r) => r[0]!);
      await inFlightPatch;

      const reopened = await h.reopen();
      expect(await reopened.namespaces.list()).toEqual(['OTHER', 'USER']);
      expect((await reopened.productions.get('OTHER', 'P'))!.name).toBe('P');
      expect((await reopened.messages.get('USER', acknowledged[0]!))!.status).toBe('completed');
      expect(await reopened.messages.get('OTHER', acknowledged[1]!)).not.toBeNull();
      expect((await reopened.log.top('USER', 1))[0]).toMatchObject({ id: logIds[0], text: 'kept' });
      for (const id of lateIds) expect(await reopened.messages.get('USER', id)).not.toBeNull();
      expect(await reopened.messages.count('USER')).toBe(51);
      const [next] = await reopened.messages.insert([newMessage()]);
      expect(next).toBeGreaterThan(Math.max(...lateIds, ...acknowledged));
    });
  });
}
