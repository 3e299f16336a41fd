/** Conformance: a settings.py migration's registrations in one transaction, and the package-switch journal. */
import { describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../../core/production.ts';
import type { MigrationRegistrations } from '../store.ts';
import { newBinding, type Harness } from './harness.ts';

const registrations: MigrationRegistrations = {
  classes: [newBinding('Python.Op'), newBinding('Python.Svc', { kind: 'service' })],
  schemas: [{ name: 'msg.Order', category: 'msg', schema: '{"type":"object"}' }],
  productions: [newProduction('Demo.Production', [newItem('Op', 'Python.Op')])],
};

const swap = { id: 'swap-1', owner: 'host:/home/a', folder: '/srv/packages', packageName: 'python', staging: '/srv/packages/.python.staged-swap-1' };

export function describeSettingsMigrations(h: Harness): void {
  describe('settings migrations', () => {
    it('writes classes, schemas and productions together', async () => {
      const store = h.store();
      await store.settingsMigrations.commit('USER', registrations, null);
      expect((await store.classes.list('USER')).map((c) => c.name)).toEqual(['Python.Op', 'Python.Svc']);
      expect((await store.schemas.get('USER', 'msg.Order'))?.schema).toBe('{"type":"object"}');
      expect((await store.productions.get('USER', 'Demo.Production'))?.definition.items.map((i) => i.name)).toEqual(['Op']);
      await expect(store.settingsMigrations.commit('NOPE', registrations, null)).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });

    it('journals a switch, marks it committed with the registrations, lists it per owner and forgets it', async () => {
      const store = h.store();
      await store.settingsMigrations.stageSwap(swap);
      await store.settingsMigrations.stageSwap({ ...swap, id: 'swap-2', owner: 'host:/home/b' });
      const [staged] = await store.settingsMigrations.swaps(swap.owner);
      expect(staged).toMatchObject({ ...swap, committed: false });
      expect(typeof staged?.createdAt).toBe('number');
      await store.settingsMigrations.commit('USER', registrations, swap.id);
      expect(await store.settingsMigrations.swaps(swap.owner)).toMatchObject([{ id: swap.id, committed: true }]);
      expect(await store.settingsMigrations.swaps('host:/home/b')).toMatchObject([{ id: 'swap-2', committed: false }]);
      await store.settingsMigrations.forgetSwap(swap.id);
      await store.settingsMigrations.forgetSwap('never-journaled');
      expect(await store.settingsMigrations.swaps(swap.owner)).toEqual([]);
    });

    it('writes nothing when the named switch is not journaled (the whole migration is one transaction)', async () => {
      const store = h.store();
      await store.productions.put('USER', newProduction('Demo.Production', [], { description: 'before' }));
      await expect(store.settingsMigrations.commit('USER', registrations, 'discarded')).rejects.toMatchObject({ code: 'ERR_MIGRATION' });
      expect(await store.classes.list('USER')).toEqual([]);
      expect(await store.schemas.list('USER')).toEqual([]);
      expect((await store.productions.get('USER', 'Demo.Production'))?.definition.description).toBe('before');
    });

    it('keeps the journal across a reopen', async () => {
      await h.store().settingsMigrations.stageSwap(swap);
      const reopened = await h.reopen();
      expect(await reopened.settingsMigrations.swaps(swap.owner)).toMatchObject([{ id: swap.id, committed: false }]);
    });
  });
}
