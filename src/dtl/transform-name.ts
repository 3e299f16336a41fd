/**
 * A transform is stored under its IRIS class name (`Demo.OrderToShipment`): dot-separated parts of
 * letters and digits, each starting with a letter, the first optionally with `%`. The server checks
 * it before storing and the portal before offering to create one, with the same words.
 */
import { maxNameLength } from '../core/names.ts';

const CLASS_NAME = /^%?\p{L}[\p{L}\p{Nd}]*(?:\.\p{L}[\p{L}\p{Nd}]*)*$/u;

/** Why `name` cannot name a transform, or null when it can. */
export function transformNameProblem(name: string): string | null {
  if (name.trim() === '') return 'a transform needs a name (its class name, e.g. Demo.OrderToShipment)';
  if (name.length > maxNameLength) return `the transform name is longer than ${maxNameLength} characters`;
  if (CLASS_NAME.test(name)) return null;
  const why = /\s/.test(name) ? 'it contains a space' : 'it is not a class name';
  return `${JSON.stringify(name.slice(0, 60))} cannot name a transform: ${why}. A transform is named by its IRIS class name: dot-separated parts of letters and digits, each starting with a letter (e.g. Demo.OrderToShipment)`;
}
