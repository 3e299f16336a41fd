import { describe, expect, it } from 'vitest';
import { transformNameProblem } from './transform-name.ts';

describe('transformNameProblem', () => {
  it('accepts IRIS class names', () => {
    for (const name of ['Demo.OrderToShipment', 'X', '%Sys.A1', 'Démo.Über2']) expect(transformNameProblem(name), name).toBeNull();
  });

  it('refuses spaces and what is not a class name, saying why', () => {
    expect(transformNameProblem('Demo.Order To Shipment')).toMatch(
      /cannot name a transform: it contains a space\. A transform is named by its IRIS class name/,
    );
    for (const name of ['Demo..X', '.X', 'X.', '1X', 'Demo.1X', 'my_module.X', 'a-b', 'a/b', '..', 'Demo.X '])
      expect(transformNameProblem(name), name).not.toBeNull();
    expect(transformNameProblem('')).toMatch(/needs a name/);
    expect(transformNameProblem(`A${'b'.repeat(300)}`)).toMatch(/longer than 255/);
  });
});
