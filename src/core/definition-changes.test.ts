import { describe, expect, it } from 'vitest';
import { canonicalJson, diffDefinitions, planOperations, withoutDestructiveChanges } from './definition-changes.ts';
import { newItem, newProduction } from './production.ts';

const current = newProduction('P', [
  newItem('In', 'Python.In', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Out, Old' }] }),
  newItem('Out', 'Python.Out', {
    settings: [
      { target: 'Adapter', name: 'path', value: '/a' },
      { target: 'Host', name: 'gone', value: '1' },
    ],
  }),
  newItem('Old', 'Python.Old'),
]);

/** Every kind of change from `current`: a field, a deletion, an addition, a class, settings added, changed and removed, a route. */
const desired = newProduction(
  'P',
  [
    newItem('In', 'Python.In', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Out,New' }] }),
    newItem('Out', 'Python.Out2', {
      poolSize: 2,
      settings: [
        { target: 'Adapter', name: 'path', value: '/b' },
        { target: 'Host', name: 'added', value: 'x' },
      ],
    }),
    newItem('New', 'Python.New'),
  ],
  { description: 'changed' },
);
describe('diffDefinitions and planOperations (IoP 4 diff and plan)', () => {
  it('orders production fields, removed and added items, item changes, then routes; classifies each operation', () => {
    const operations = planOperations(diffDefinitions(current, desired));
    expect(operations.map((op) => [op.id, op.path, op.risk, op.before, op.after])).toEqual([
      ['0001-set_production_field', 'production.description', 'safe', '', 'changed'],
      ['0002-delete_item', 'items.Old', 'destructive', expect.objectContaining({ class_name: 'Python.Old' }), undefined],
      ['0003-add_item', 'items.New', 'safe', undefined, expect.objectContaining({ class_name: 'Python.New' })],
      ['0004-replace_item_class', 'items.Out.class_name', 'destructive', 'Python.Out', 'Python.Out2'],
      ['0005-set_item_field', 'items.Out.pool_size', 'safe', 1, 2],
      ['0006-set_setting', 'items.Out.settings.Adapter.path', 'safe', '/a', '/b'],
      ['0007-set_setting', 'items.Out.settings.Host.added', 'safe', undefined, 'x'],
      ['0008-remove_setting', 'items.Out.settings.Host.gone', 'destructive', '1', undefined],
      ['0009-set_route_setting', 'connections.In.TargetConfigNames', 'safe', ['Old', 'Out'], ['New', 'Out']],
    ]);
    expect(operations.filter((op) => !op.allowed_by_default).map((op) => op.reason)).toEqual([
      'item deletion is destructive',
      'class replacement can change runtime behavior',
      'setting removal is destructive',
    ]);
  });

  it('sees no change in route target order or spacing, and a removed route as destructive', () => {
    const same = newProduction(
      'P',
      current.items.map((item) =>
        item.name === 'In' ? { ...item, settings: [{ target: 'Host' as const, name: 'TargetConfigNames', value: 'Old,Out' }] } : item,
      ),
    );
    expect(diffDefinitions(current, same)).toEqual([]);
    const unrouted = newProduction(
      'P',
      current.items.map((item) => (item.name === 'In' ? { ...item, settings: [] } : item)),
    );
    expect(planOperations(diffDefinitions(current, unrouted))).toEqual([
      expect.objectContaining({
        op_type: 'remove_route',
        path: 'connections.In.TargetConfigNames',
        risk: 'destructive',
        reason: 'route removal is destructive',
      }),
    ]);
  });

  it("diffs production-level settings under IoP 4's field names, an absent known one as its default", () => {
    const before = { ...current, settings: [{ name: 'UpdateTimeout', value: '20' }] };
    const desired = {
      ...current,
      settings: [
        { name: 'ShutdownTimeout', value: '300' },
        { name: 'Custom', value: 'x' },
      ],
    };
    const changes = diffDefinitions(before, desired);
    expect(changes).toEqual([
      { action: 'change', kind: 'production', path: 'production.shutdown_timeout', before: '120', after: '300' },
      { action: 'change', kind: 'production', path: 'production.update_timeout', before: '20', after: '10' },
      { action: 'change', kind: 'production', path: 'production.Setting.Custom', after: 'x' },
    ]);
    expect(planOperations(changes).map((op) => [op.op_type, op.risk])).toEqual([
      ['set_production_field', 'safe'],
      ['set_production_field', 'safe'],
      ['set_production_field', 'safe'],
    ]);
    expect(diffDefinitions(current, { ...current, settings: [{ name: 'ShutdownTimeout', value: '120' }] })).toEqual([]);
  });

  it('plans a new production as its items added', () => {
    expect(planOperations(diffDefinitions(null, current)).map((op) => op.op_type)).toEqual(['add_item', 'add_item', 'add_item', 'set_route_setting']);
  });

  it("applies a plan's safe operations and skips its destructive ones, as IoP's apply without allow_destructive", () => {
    const routed = { ...desired, settings: [{ name: 'ShutdownTimeout', value: '30' }] };
    const unrouted = { ...routed, items: routed.items.map((item) => (item.name === 'In' ? { ...item, settings: [] } : item)) };
    for (const wanted of [routed, unrouted]) {
      const plan = planOperations(diffDefinitions(current, wanted));
      const result = withoutDestructiveChanges(current, wanted);
      const strip = (ops: typeof plan) => ops.map(({ op_type, path, before, after }) => ({ op_type, path, before, after }));
      expect(strip(planOperations(diffDefinitions(current, result)))).toEqual(strip(plan.filter((op) => op.risk === 'safe')));
      expect(strip(planOperations(diffDefinitions(result, wanted)))).toEqual(strip(plan.filter((op) => op.risk === 'destructive')));
    }
    const result = withoutDestructiveChanges(current, unrouted);
    // The current items in their order (the deleted one kept), the added one after them.
    expect(result.items.map((item) => [item.name, item.classname])).toEqual([
      ['In', 'Python.In'],
      ['Out', 'Python.Out'],
      ['Old', 'Python.Old'],
      ['New', 'Python.New'],
    ]);
    expect(result.items[0]?.settings).toEqual([{ target: 'Host', name: 'TargetConfigNames', value: 'Out, Old' }]);
    expect(result.items[1]?.settings).toEqual([
      { target: 'Adapter', name: 'path', value: '/b' },
      { target: 'Host', name: 'added', value: 'x' },
      { target: 'Host', name: 'gone', value: '1' },
    ]);
    expect(result.description).toBe('changed');
    expect(result.settings).toEqual([{ name: 'ShutdownTimeout', value: '30' }]);
    // Nothing is shared with the inputs.
    result.items[1]!.settings[0]!.value = '/c';
    expect(unrouted.items[1]?.settings[0]?.value).toBe('/b');
  });

  it('writes canonical JSON with sorted keys and no spaces', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true, u: undefined })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
  });
});
