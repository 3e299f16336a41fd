/**
 * What a production definition must satisfy before it is stored (PUT /definition, the portal's
 * editor): the production, its items and their classes have names by the rule of every stored name
 * (core/names.ts: a production named `..` would appear in GET /list and be read back through paths),
 * and the pool sizes are whole numbers a machine can run (each pool slot is a worker process).
 */
import { ConveyorError } from './errors.ts';
import { checkName } from './names.ts';
import type { ProductionDefinition } from './production.ts';

/** More workers than any single item needs; 1e308 would have the engine try to start them all. */
export const maxPoolSize = 1000;

function checkPoolSize(what: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > maxPoolSize) {
    throw new ConveyorError('ERR_INVALID_INPUT', `${what} must be a whole number from 0 to ${maxPoolSize}, not ${value}`);
  }
}

/** Throws ERR_INVALID_INPUT naming the first field that is wrong. */
export function checkDefinition(definition: ProductionDefinition): void {
  checkName('production', definition.name);
  checkPoolSize(`The actor pool size of production ${definition.name}`, definition.actorPoolSize);
  for (const item of definition.items) {
    checkName('item', item.name);
    checkName('class', item.classname);
    checkPoolSize(`The pool size of item ${item.name}`, item.poolSize);
  }
}
