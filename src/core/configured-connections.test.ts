import { describe, expect, it } from 'vitest';
import type { ClassBinding } from './components.ts';
import { configuredConnections, configuredRoutes } from './configured-connections.ts';
import { newItem, newProduction } from './production.ts';

function binding(name: string, settings: ClassBinding['settings']): ClassBinding {
  return { name, kind: 'process', runtime: 'python', module: 'bp', className: 'P', classpaths: [], adapterType: null, updatedAt: 0, settings };
}

const declaredTarget = (name: string, defaultValue: string | null) => ({ name, type: 'str', defaultValue, description: '', isTarget: true });

describe('configuredConnections', () => {
  it('reads TargetConfigNames and target() settings of the items, before any traffic', () => {
    const definition = newProduction('P', [
      newItem('Svc', 'Conveyor.Service.Ticker', { settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'Router, Audit' }] }),
      newItem('Router', 'bp.Router', { settings: [{ target: 'Host', name: 'target', value: 'Op' }] }),
      newItem('Op', 'bo.Op'),
      newItem('Audit', 'bo.Op'),
    ]);
    const classes = [binding('bp.Router', [declaredTarget('target', null)])];
    expect(configuredConnections(definition, classes)).toEqual([
      { from: 'Svc', to: 'Router' },
      { from: 'Svc', to: 'Audit' },
      { from: 'Router', to: 'Op' },
    ]);
  });

  it('uses the class default of a target setting the item leaves unset (the item runs with it), not when the item sets it', () => {
    const classes = [
      binding('bp.Router', [declaredTarget('target', 'Op'), { name: 'TargetConfigNames', type: 'str', defaultValue: 'Audit', description: '' }]),
    ];
    const unset = newProduction('P', [newItem('Router', 'bp.Router')]);
    expect(configuredRoutes(unset, classes)).toEqual([
      { from: 'Router', setting: 'target', targets: ['Op'] },
      { from: 'Router', setting: 'TargetConfigNames', targets: ['Audit'] },
    ]);
    const set = newProduction('P', [newItem('Router', 'bp.Router', { settings: [{ target: 'Host', name: 'target', value: 'Other' }] })]);
    expect(configuredConnections(set, classes)).toEqual([
      { from: 'Router', to: 'Other' },
      { from: 'Router', to: 'Audit' },
    ]);
  });
});
