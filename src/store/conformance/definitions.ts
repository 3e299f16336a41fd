/** Conformance: namespaces, productions, class bindings, schemas, transforms and lookup tables. */
import { describe, expect, it } from 'vitest';
import { newItem, newProduction } from '../../core/production.ts';
import { clockPast, newBinding, type Harness } from './harness.ts';

export function describeDefinitions(h: Harness): void {
  describe('namespaces', () => {
    it('has USER from the start and creates others idempotently, listed by name', async () => {
      const store = h.store();
      expect(await store.namespaces.list()).toEqual(['USER']);
      expect(await store.namespaces.exists('USER')).toBe(true);
      expect(await store.namespaces.exists('OTHER')).toBe(false);
      await store.namespaces.create('OTHER');
      await store.namespaces.create('OTHER');
      await store.namespaces.create('%SYS');
      expect(await store.namespaces.list()).toEqual(['%SYS', 'OTHER', 'USER']);
      expect(await store.namespaces.exists('OTHER')).toBe(true);
    });

    it('refuses invalid namespace names with ERR_INVALID_INPUT', async () => {
      for (const name of ['', 'has space', '../etc', 'a/b', 'x'.repeat(65)]) {
        await expect(h.store().namespaces.create(name)).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
      }
      expect(await h.store().namespaces.list()).toEqual(['USER']);
    });
  });

  describe('productions', () => {
    const definition = newProduction(
      'Demo.Production',
      [
        newItem('Svc', 'Python.Svc', {
          poolSize: 0,
          enabled: false,
          foreground: true,
          comment: 'ünïcödé ✓ 日本',
          logTraceEvents: true,
          schedule: 'START:*-*-*T08:00:00',
        }),
        newItem('Op', 'Python.Op', {
          category: 'a,b',
          settings: [
            { target: 'Adapter', name: 'FilePath', value: '/tmp/x' },
            { target: 'Host', name: 'Limit', value: '' },
          ],
        }),
      ],
      { description: 'A "quoted" description', testingEnabled: false, logGeneralTraceEvents: true, actorPoolSize: 7 },
    );

    it('round-trips a definition and starts new records stopped, without auto-start or times', async () => {
      const store = h.store();
      const before = Date.now();
      await store.productions.put('USER', definition);
      const record = await store.productions.get('USER', 'Demo.Production');
      expect(record).toEqual({
        namespace: 'USER',
        name: 'Demo.Production',
        definition,
        autoStart: false,
        lastStartTime: null,
        lastStopTime: null,
        state: 'stopped',
        updatedAt: expect.any(Number),
      });
      expect(record!.updatedAt).toBeGreaterThanOrEqual(before);
      expect(await store.productions.get('USER', 'Missing')).toBeNull();
    });

    it('keeps production-level settings with the definition; a definition without them replaces them and reads with none', async () => {
      const store = h.store();
      const withSettings = {
        ...definition,
        settings: [
          { name: 'ShutdownTimeout', value: '300' },
          { name: 'AlertNotificationRecipients', value: 'ops@example.com, ünïcödé' },
        ],
      };
      await store.productions.put('USER', withSettings);
      expect((await store.productions.get('USER', definition.name))?.definition).toEqual(withSettings);
      await store.productions.put('USER', definition);
      const replaced = (await store.productions.get('USER', definition.name))?.definition;
      expect(replaced).toEqual(definition);
      expect(replaced).not.toHaveProperty('settings');
    });

    it('keeps state, times and auto-start when the definition is replaced', async () => {
      const store = h.store();
      await store.productions.put('USER', definition);
      await store.productions.setState('USER', definition.name, { state: 'running', lastStartTime: 1_000, lastStopTime: 500 });
      await store.productions.setAutoStart('USER', definition.name, true);
      const changed = { ...definition, description: 'second', items: [] };
      await store.productions.put('USER', changed);
      expect(await store.productions.get('USER', definition.name)).toMatchObject({
        definition: changed,
        state: 'running',
        lastStartTime: 1_000,
        lastStopTime: 500,
        autoStart: true,
      });
    });

    it('patches only the state fields given, and sets null when asked', async () => {
      const store = h.store();
      await store.productions.put('USER', definition);
      await store.productions.setState('USER', definition.name, { state: 'running', lastStartTime: 1_000 });
      await store.productions.setState('USER', definition.name, { lastStopTime: 2_000 });
      expect(await store.productions.get('USER', definition.name)).toMatchObject({ state: 'running', lastStartTime: 1_000, lastStopTime: 2_000 });
      await store.productions.setState('USER', definition.name, { state: 'stopped', lastStartTime: null });
      expect(await store.productions.get('USER', definition.name)).toMatchObject({ state: 'stopped', lastStartTime: null, lastStopTime: 2_000 });
      await store.productions.setAutoStart('USER', definition.name, true);
      await store.productions.setAutoStart('USER', definition.name, false);
      expect((await store.productions.get('USER', definition.name))!.autoStart).toBe(false);
    });

    it('rejects state changes of an unknown production with ERR_PRODUCTION_NOT_FOUND', async () => {
      const store = h.store();
      await expect(store.productions.setState('USER', 'Nope', { state: 'running' })).rejects.toMatchObject({ code: 'ERR_PRODUCTION_NOT_FOUND' });
      await expect(store.productions.setAutoStart('USER', 'Nope', true)).rejects.toMatchObject({ code: 'ERR_PRODUCTION_NOT_FOUND' });
    });

    it('lists by name, deletes, and forgets a deleted default', async () => {
      const store = h.store();
      for (const name of ['B.Prod', 'A.Prod', 'C.Prod']) await store.productions.put('USER', newProduction(name));
      expect((await store.productions.list('USER')).map((r) => r.name)).toEqual(['A.Prod', 'B.Prod', 'C.Prod']);
      expect(await store.productions.getDefault('USER')).toBeNull();
      await store.productions.setDefault('USER', 'B.Prod');
      expect(await store.productions.getDefault('USER')).toBe('B.Prod');
      await store.productions.delete('USER', 'A.Prod');
      expect(await store.productions.getDefault('USER')).toBe('B.Prod');
      await store.productions.delete('USER', 'B.Prod');
      expect(await store.productions.get('USER', 'B.Prod')).toBeNull();
      expect(await store.productions.getDefault('USER')).toBeNull();
      expect((await store.productions.list('USER')).map((r) => r.name)).toEqual(['C.Prod']);
      await store.productions.setDefault('USER', 'Not.Yet.Created');
      expect(await store.productions.getDefault('USER')).toBe('Not.Yet.Created');
    });

    it('answers empty for an unknown namespace and refuses writes into it', async () => {
      const store = h.store();
      expect(await store.productions.list('NOPE')).toEqual([]);
      expect(await store.productions.get('NOPE', 'x')).toBeNull();
      expect(await store.productions.getDefault('NOPE')).toBeNull();
      await expect(store.productions.put('NOPE', definition)).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
      await expect(store.productions.setDefault('NOPE', 'x')).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });
  });

  describe('class bindings', () => {
    it('round-trips every field, replaces on put, lists by name and deletes', async () => {
      const store = h.store();
      const python = newBinding('Python.Op');
      const builtin = newBinding('Ens.Builtin', {
        kind: 'inbound_adapter',
        runtime: 'builtin',
        module: null,
        className: null,
        classpaths: [],
        settings: [],
        adapterType: 'Ens.InboundAdapter',
      });
      await store.classes.put('USER', python);
      await store.classes.put('USER', builtin);
      expect(await store.classes.get('USER', 'Python.Op')).toEqual(python);
      expect(await store.classes.get('USER', 'Ens.Builtin')).toEqual(builtin);
      expect((await store.classes.list('USER')).map((b) => b.name)).toEqual(['Ens.Builtin', 'Python.Op']);
      const replaced = { ...python, module: 'bo2', classpaths: ['/a', '/b ü'], updatedAt: python.updatedAt + 1 };
      await store.classes.put('USER', replaced);
      expect(await store.classes.get('USER', 'Python.Op')).toEqual(replaced);
      await store.classes.delete('USER', 'Python.Op');
      expect(await store.classes.get('USER', 'Python.Op')).toBeNull();
      expect(await store.classes.list('USER')).toEqual([builtin]);
      await expect(store.classes.put('NOPE', python)).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });
  });

  describe('schemas', () => {
    it('round-trips, replaces, lists by name and deletes', async () => {
      const store = h.store();
      const before = Date.now();
      const text = JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Ünï', type: 'object' });
      await store.schemas.put('USER', { name: 'pkg.B', category: 'pkg', schema: text });
      await store.schemas.put('USER', { name: 'pkg.A', category: 'pkg', schema: '{}' });
      const stored = await store.schemas.get('USER', 'pkg.B');
      expect(stored).toEqual({ name: 'pkg.B', category: 'pkg', schema: text, updatedAt: expect.any(Number) });
      expect(stored!.updatedAt).toBeGreaterThanOrEqual(before);
      expect((await store.schemas.list('USER')).map((s) => s.name)).toEqual(['pkg.A', 'pkg.B']);
      await store.schemas.put('USER', { name: 'pkg.B', category: 'other', schema: '{"type":"string"}' });
      expect(await store.schemas.get('USER', 'pkg.B')).toMatchObject({ category: 'other', schema: '{"type":"string"}' });
      await store.schemas.delete('USER', 'pkg.B');
      expect(await store.schemas.get('USER', 'pkg.B')).toBeNull();
      expect((await store.schemas.list('USER')).map((s) => s.name)).toEqual(['pkg.A']);
    });
  });

  describe('transforms', () => {
    it('numbers versions 1, 2, 3 and serves the latest or a given one', async () => {
      const store = h.store();
      const v1 = await store.transforms.put('USER', 'dtl.Map', '<transform v="1"/>');
      await clockPast(v1.updatedAt);
      const v2 = await store.transforms.put('USER', 'dtl.Map', '<transform v="2"/>');
      const v3 = await store.transforms.put('USER', 'dtl.Map', 'Class dtl.Map Extends Ens.DataTransformDTL { ü }');
      expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
      expect(v2.updatedAt).toBeGreaterThan(v1.updatedAt);
      expect(await store.transforms.get('USER', 'dtl.Map')).toEqual(v3);
      expect(await store.transforms.get('USER', 'dtl.Map', 1)).toEqual(v1);
      expect(await store.transforms.get('USER', 'dtl.Map', 4)).toBeNull();
      expect(await store.transforms.get('USER', 'dtl.Other')).toBeNull();
      expect(await store.transforms.history('USER', 'dtl.Map')).toEqual([v1, v2, v3]);
    });

    it('lists the latest version of each transform by name, and delete removes all versions', async () => {
      const store = h.store();
      await store.transforms.put('USER', 'dtl.B', 'b1');
      await store.transforms.put('USER', 'dtl.A', 'a1');
      const b2 = await store.transforms.put('USER', 'dtl.B', 'b2');
      const list = await store.transforms.list('USER');
      expect(list.map((t) => [t.name, t.version, t.source])).toEqual([
        ['dtl.A', 1, 'a1'],
        ['dtl.B', 2, 'b2'],
      ]);
      expect(list[1]).toEqual(b2);
      await store.transforms.delete('USER', 'dtl.B');
      expect(await store.transforms.get('USER', 'dtl.B')).toBeNull();
      expect(await store.transforms.history('USER', 'dtl.B')).toEqual([]);
      expect((await store.transforms.put('USER', 'dtl.B', 'again')).version).toBe(1);
      await expect(store.transforms.put('NOPE', 'dtl.B', 'x')).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });
  });

  describe('lookup tables', () => {
    it('round-trips entries, replaces the whole table on put, keeps empty tables and deletes', async () => {
      const store = h.store();
      const entries = { ünï: 'cödé', a: '', __proto__x: 'y', 'with space': 'v a l', '1': 'one' };
      await store.lookups.put('USER', 'Codes', entries);
      expect(await store.lookups.get('USER', 'Codes')).toEqual(entries);
      await store.lookups.put('USER', 'Codes', { b: '2' });
      expect(await store.lookups.get('USER', 'Codes')).toEqual({ b: '2' });
      await store.lookups.put('USER', 'Empty', {});
      expect(await store.lookups.get('USER', 'Empty')).toEqual({});
      expect(await store.lookups.get('USER', 'Missing')).toBeNull();
      expect(await store.lookups.tables('USER')).toEqual(['Codes', 'Empty']);
      await store.lookups.delete('USER', 'Codes');
      expect(await store.lookups.get('USER', 'Codes')).toBeNull();
      expect(await store.lookups.tables('USER')).toEqual(['Empty']);
      await expect(store.lookups.put('NOPE', 'T', {})).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });

    it('replaces several tables at once with putMany and leaves the others alone', async () => {
      const store = h.store();
      await store.lookups.put('USER', 'A', { old: '1' });
      await store.lookups.put('USER', 'Keep', { k: 'v' });
      await store.lookups.putMany('USER', { A: { new: '2' }, B: { b: '3' }, Empty: {} });
      expect(await store.lookups.get('USER', 'A')).toEqual({ new: '2' });
      expect(await store.lookups.get('USER', 'B')).toEqual({ b: '3' });
      expect(await store.lookups.get('USER', 'Empty')).toEqual({});
      expect(await store.lookups.get('USER', 'Keep')).toEqual({ k: 'v' });
      await expect(store.lookups.putMany('NOPE', { T: {} })).rejects.toMatchObject({ code: 'ERR_NAMESPACE_UNKNOWN' });
    });

    it('keeps a "__proto__" key as a plain entry', async () => {
      const store = h.store();
      const entries = JSON.parse('{"__proto__":"p","k":"v"}') as Record<string, string>;
      await store.lookups.put('USER', 'Odd', entries);
      const read = await store.lookups.get('USER', 'Odd');
      expect(Object.keys(read!).sort()).toEqual(['__proto__', 'k']);
      expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    });
  });
}
