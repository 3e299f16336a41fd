import { describe, expect, it } from 'vitest';
import { builtinClasses } from './index.ts';
import { BuiltinComponent } from './builtin-component.ts';

describe('the built-in classes', () => {
  it('are the six Conveyor.* classes, the EnsLib passthrough pair and the routing engine, each of its kind', () => {
    expect([...builtinClasses.keys()].sort()).toEqual([
      'Conveyor.Operation.Echo',
      'Conveyor.Operation.FileOutbound',
      'Conveyor.Process.Router',
      'Conveyor.Process.Transform',
      'Conveyor.Service.FileInbound',
      'Conveyor.Service.Ticker',
      'EnsLib.File.PassthroughOperation',
      'EnsLib.File.PassthroughService',
      'EnsLib.MsgRouter.RoutingEngine',
    ]);
    // IRIS names its routing process an engine; every other class says its kind in its name.
    for (const [name, builtin] of builtinClasses) expect(name === 'EnsLib.MsgRouter.RoutingEngine' ? 'process' : name.toLowerCase()).toContain(builtin.kind);
  });

  it('make a new instance for every job', () => {
    for (const { factory, description } of builtinClasses.values()) {
      const first = factory.create();
      expect(first).toBeInstanceOf(BuiltinComponent);
      expect(factory.create()).not.toBe(first);
      expect(description.length).toBeGreaterThan(10);
    }
  });
});
