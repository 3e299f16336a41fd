/** Conformance: routing rule classes (versioned like transforms, in their own table). */
import { describe, expect, it } from 'vitest';
import type { Harness } from './harness.ts';

export function describeRules(h: Harness): void {
  describe('rules', () => {
    it('numbers versions, serves the latest or a given one, keeps them across a reopen', async () => {
      let store = h.store();
      const v1 = await store.rules.put('USER', 'Demo.Rules', 'Class Demo.Rules Extends Ens.Rule.Definition { v1 }');
      const v2 = await store.rules.put('USER', 'Demo.Rules', 'Class Demo.Rules Extends Ens.Rule.Definition { ü }');
      expect([v1.version, v2.version]).toEqual([1, 2]);
      store = await h.reopen();
      expect(await store.rules.get('USER', 'Demo.Rules')).toEqual(v2);
      expect(await store.rules.get('USER', 'Demo.Rules', 1)).toEqual(v1);
      expect(await store.rules.get('USER', 'Demo.Rules', 3)).toBeNull();
      expect(await store.rules.history('USER', 'Demo.Rules')).toEqual([v1, v2]);
    });

    it('are apart from transforms: listed by name, deleted with every version', async () => {
      const store = h.store();
      await store.transforms.put('USER', 'Demo.Rules', '<transform/>');
      await store.rules.put('USER', 'Demo.B', 'b1');
      await store.rules.put('USER', 'Demo.A', 'a1');
      await store.rules.put('USER', 'Demo.B', 'b2');
      expect((await store.rules.list('USER')).map((r) => [r.name, r.version, r.source])).toEqual([
        ['Demo.A', 1, 'a1'],
        ['Demo.B', 2, 'b2'],
      ]);
      await store.rules.delete('USER', 'Demo.B');
      expect(await store.rules.get('USER', 'Demo.B')).toBeNull();
      expect((await store.rules.put('USER', 'Demo.B', 'again')).version).toBe(1);
      expect((await store.transforms.list('USER')).map((t) => t.name)).toEqual(['Demo.Rules']);
      await expect(store.rules.put('NOPE', 'Demo.B', 'x')).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });
  });
}
