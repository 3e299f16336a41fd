/**
 * What a lookup table may be called. A name must be readable back through every route that names a
 * table: it is a path segment of `GET /lookups/{name}` (so no `/`, `\`, `.` or `..`, and short enough
 * for the router), an item of the comma-separated `table` list of `GET /lookups/export` (so no comma),
 * and `export` / `import` are routes of their own beside it; on top of the rule of every stored name
 * (core/names.ts). Checked wherever a table is created: the lookup-table XML import and the engine.
 */
import { ConveyorError } from '../core/errors.ts';
import { nameProblem } from '../core/names.ts';

/** Route words beside `/lookups/{name}`: a table of that name could never be read back. */
export const reservedLookupNames: readonly string[] = ['export', 'import'];
/** Fastify's default `maxParamLength`: the longest path segment the router matches. */
export const maxLookupNameLength = 100;

/** Why `name` cannot name a lookup table, or null when it can. */
export function lookupNameProblem(name: string): string | null {
  const common = nameProblem('lookup table', name);
  if (common) return common;
  if (name.includes(',')) return `the lookup table name ${JSON.stringify(name)} contains ","; GET /lookups/export?table= lists names with commas`;
  if (reservedLookupNames.includes(name)) return `"${name}" is reserved (GET /lookups/${name} is a route of its own); choose another name`;
  if (encodeURIComponent(name).length > maxLookupNameLength)
    return `the lookup table name ${JSON.stringify(name.slice(0, 20))}… is longer than ${maxLookupNameLength} characters once URL-encoded`;
  return null;
}

/** Throws ERR_INVALID_INPUT naming the problem. */
export function checkLookupName(name: string): void {
  const problem = lookupNameProblem(name);
  if (problem) {
    throw new ConveyorError('ERR_INVALID_INPUT', `Invalid lookup table name: ${problem}`, {
      hint: 'use letters, digits, spaces and . _ - (for example Demo.Gender)',
    });
  }
}
