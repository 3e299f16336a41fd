/**
 * The definition an apply replaced, kept inside the stored record of the production itself: the
 * stored JSON carries it under one extra key, so the new definition and the one it replaced are
 * written by one row write (all or nothing across kill -9, on SQLite and PostgreSQL alike, with no
 * second table to keep in step). Only the last replaced definition is kept; a settings.py migration or
 * a plain PUT /definition writes the definition alone, which forgets it (docs/api.md, "Production changes").
 */
import type { ProductionDefinition } from '../core/production.ts';

const previousKey = 'replacedDefinition';

type Stored = ProductionDefinition & { [previousKey]?: ProductionDefinition };

/** What to store: the desired definition carrying the one it replaces (itself without history). */
export function withPrevious(desired: ProductionDefinition, previous: ProductionDefinition | null): ProductionDefinition {
  const clean = withoutPrevious(desired);
  return previous === null ? clean : ({ ...clean, [previousKey]: withoutPrevious(previous) } as Stored);
}

export function previousOf(stored: ProductionDefinition): ProductionDefinition | null {
  return (stored as Stored)[previousKey] ?? null;
}

/** The definition as every reader sees it: without the recorded previous one. */
export function withoutPrevious(stored: ProductionDefinition): ProductionDefinition {
  if (!(previousKey in stored)) return stored;
  const definition: Stored = { ...(stored as Stored) };
  delete definition[previousKey];
  return definition;
}
