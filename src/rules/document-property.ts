/**
 * The property an `<assign>` of a routing rule writes: a path into the message, `Document.A.B` or
 * `Document.{a.b}` (members only: a routing rule sets fields of the message it routes, it does not
 * index lists). Written into the message's JSON, creating the objects on the way, as IRIS sets the
 * property of the message object it then sends.
 */

const MEMBER = /^[%A-Za-z][A-Za-z0-9]*$/;
const CURLY_MEMBER = /^[^.{}()]+$/;

/** The member names of `property`, or why it is not a path into the message. */
export function documentProperty(property: string): { path: string[] } | { problem: string } {
  const rest = property.startsWith('Document.') ? property.slice('Document.'.length) : null;
  if (rest === null || rest === '') return { problem: `<assign> sets a property of the message: write Document.Name or Document.{a.b}, not "${property}"` };
  const curly = /^\{(.*)\}$/.exec(rest);
  const path = (curly ? curly[1]! : rest).split('.');
  const valid = curly ? CURLY_MEMBER : MEMBER;
  const bad = path.find((name) => !valid.test(name));
  if (bad !== undefined) return { problem: `"${bad}" in ${property} is not a property name${curly ? '' : ' (use Document.{…} for other names)'}` };
  return { path };
}

/** Writes `value` at `path` of `document` (an object, changed in place); throws when a step is not an object. */
export function writeDocumentProperty(document: unknown, path: string[], value: unknown, property: string): void {
  let node = document;
  for (const [i, name] of path.entries()) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new Error(`cannot set ${property}: ${i === 0 ? 'the message is not an object' : `${path.slice(0, i).join('.')} is not an object`}`);
    }
    const record = node as Record<string, unknown>;
    if (i === path.length - 1) {
      record[name] = value;
      return;
    }
    if (record[name] === undefined || record[name] === null || record[name] === '') record[name] = {};
    node = record[name];
  }
}
