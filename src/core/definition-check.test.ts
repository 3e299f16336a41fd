import { describe, expect, it } from 'vitest';
import { checkDefinition } from './definition-check.ts';
import { newItem, newProduction, type ProductionDefinition } from './production.ts';

const good = (): ProductionDefinition => newProduction('Demo.Production', [newItem('Echo', 'Python.EchoOperation')]);

describe('checkDefinition', () => {
  it('accepts a plain definition', () => {
    expect(() => checkDefinition(good())).not.toThrow();
  });

  it.each([
    ['a production named ..', (d: ProductionDefinition) => ({ ...d, name: '..' }), 'Invalid production name: ".." cannot name a production'],
    [
      'a production name with a path',
      (d: ProductionDefinition) => ({ ...d, name: '/etc/passwd' }),
      'Invalid production name: the production name "/etc/passwd" contains "/" or "\\"',
    ],
    [
      'an item name with NUL',
      (d: ProductionDefinition) => ({ ...d, items: [{ ...d.items[0]!, name: 'a\u0000b' }] }),
      'Invalid item name: the item name "a\\u0000b" contains a control character',
    ],
    [
      'a class name with a path',
      (d: ProductionDefinition) => ({ ...d, items: [{ ...d.items[0]!, classname: '../x' }] }),
      'Invalid class name: the class name "../x" contains "/" or "\\"',
    ],
    [
      'a pool size of 1e308',
      (d: ProductionDefinition) => ({ ...d, items: [{ ...d.items[0]!, poolSize: 1e308 }] }),
      'The pool size of item Echo must be a whole number from 0 to 1000, not 1e+308',
    ],
    [
      'an actor pool size of -1',
      (d: ProductionDefinition) => ({ ...d, actorPoolSize: -1 }),
      'The actor pool size of production Demo.Production must be a whole number from 0 to 1000, not -1',
    ],
  ])('refuses %s with ERR_INVALID_INPUT', (_label, change, message) => {
    expect(() => checkDefinition(change(good()))).toThrow(message);
  });
});
