/**
 * The rule every stored name follows (transforms, schemas and their packages, lookup tables, users):
 * a name is read back through a URL path segment and may end up in a file name, so it is not empty,
 * not `.` or `..`, has no `/`, `\` or control character (NUL among them), and is at most 255
 * characters. Stricter rules (lookup tables, users) build on this one.
 */
import { ConveyorError } from './errors.ts';

export const maxNameLength = 255;

/** Why `name` cannot name a stored `kind` (e.g. "transform"), or null when it can. */
export function nameProblem(kind: string, name: string): string | null {
  if (name.trim() === '') return `a ${kind} needs a name`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return `the ${kind} name ${JSON.stringify(name.slice(0, 40))} contains a control character`;
  if (name === '.' || name === '..') return `"${name}" cannot name a ${kind}`;
  if (/[/\\]/.test(name)) return `the ${kind} name ${JSON.stringify(name.slice(0, 40))} contains "/" or "\\"`;
  if (name.length > maxNameLength) return `the ${kind} name ${JSON.stringify(name.slice(0, 20))}… is longer than ${maxNameLength} characters`;
  return null;
}

/** Throws ERR_INVALID_INPUT naming the problem. */
export function checkName(kind: string, name: string): void {
  const problem = nameProblem(kind, name);
  if (problem) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid ${kind} name: ${problem}`);
}
