/**
 * The body condition of a message search: a small query language over a JSON body.
 *
 *   condition  := test ( "and" test )*
 *   test       := path "=" literal | path "contains" string
 *   path       := "$" ( "." name | "[" index "]" | "[" string "]" )*
 *   name       := a letter or "_", then letters, digits, "_" or "-"
 *   literal    := a JSON number, a JSON string (double quotes), true, false or null
 *
 * `=` is typed: `$.id = 42` matches the number 42 (or 42.0), not the string "42". `contains` matches a
 * string value holding the text, case-sensitive. A path that is absent never matches. Keywords are
 * case-insensitive. Examples: `$.patient.id = 42`, `$.name contains "urgent" and $.items[0].sku = "A-1"`.
 */
import { ConveyorError } from './errors.ts';

/** One step into a JSON value: an object member or an array element. */
export type PathStep = string | number;

export type BodyTest = { path: PathStep[]; op: 'equals'; value: string | number | boolean | null } | { path: PathStep[]; op: 'contains'; value: string };

/** At most this many tests in one condition: each is evaluated on every body the search examines. */
export const maxBodyTests = 8;

const namePattern = /^[A-Za-z_][A-Za-z0-9_-]*/;
const numberPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;
const stringPattern = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/;

class Reader {
  #rest: string;
  readonly #source: string;

  constructor(source: string) {
    this.#source = source;
    this.#rest = source;
  }

  get position(): number {
    return this.#source.length - this.#rest.length;
  }

  skipSpace(): void {
    this.#rest = this.#rest.replace(/^\s+/, '');
  }

  atEnd(): boolean {
    return this.#rest.length === 0;
  }

  take(pattern: RegExp): string | undefined {
    const match = pattern.exec(this.#rest);
    if (!match) return undefined;
    this.#rest = this.#rest.slice(match[0].length);
    return match[0];
  }

  fail(expected: string): never {
    const found = this.#rest.length === 0 ? 'the end' : `"${this.#rest.slice(0, 12)}"`;
    throw new ConveyorError(
      'ERR_INVALID_INPUT',
      `Body condition "${this.#source}": expected ${expected} at position ${this.position + 1}, found ${found} (syntax: $.path = value, $.path contains "text", joined by "and")`,
    );
  }
}

function readPath(reader: Reader): PathStep[] {
  if (reader.take(/^\$/) === undefined) reader.fail('a path starting with $');
  const steps: PathStep[] = [];
  for (;;) {
    if (reader.take(/^\./) !== undefined) {
      steps.push(reader.take(namePattern) ?? reader.fail('a member name after "."'));
    } else if (reader.take(/^\[/) !== undefined) {
      const index = reader.take(/^[0-9]+/);
      const quoted = index === undefined ? reader.take(stringPattern) : undefined;
      if (index === undefined && quoted === undefined) reader.fail('an array index or a quoted member name inside [ ]');
      if (reader.take(/^\]/) === undefined) reader.fail('"]"');
      if (index !== undefined) {
        const value = Number(index);
        if (!Number.isSafeInteger(value)) reader.fail('an array index that is a safe integer');
        steps.push(value);
      } else {
        const name = JSON.parse(quoted!) as string;
        // Neither store can carry these inside a path step safely (SQLite paths cannot escape a quote).
        if (/["\\]/.test(name) || name.length === 0) reader.fail('a member name without quotes or backslashes');
        steps.push(name);
      }
    } else {
      return steps;
    }
  }
}

function readLiteral(reader: Reader): string | number | boolean | null {
  const text = reader.take(stringPattern);
  if (text !== undefined) return JSON.parse(text) as string;
  const number = reader.take(numberPattern);
  if (number !== undefined) {
    const value = Number(number);
    if (!Number.isFinite(value)) reader.fail('a finite number');
    return value;
  }
  const word = reader.take(/^(true|false|null)\b/i)?.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  return reader.fail('a JSON value (number, "string", true, false or null)');
}

function readTest(reader: Reader): BodyTest {
  reader.skipSpace();
  const path = readPath(reader);
  reader.skipSpace();
  if (reader.take(/^=/) !== undefined) {
    reader.skipSpace();
    return { path, op: 'equals', value: readLiteral(reader) };
  }
  if (reader.take(/^contains\b/i) !== undefined) {
    reader.skipSpace();
    const text = reader.take(stringPattern) ?? reader.fail('a "quoted string" after contains');
    return { path, op: 'contains', value: JSON.parse(text) as string };
  }
  return reader.fail('"=" or "contains"');
}

/** Parses a condition; a malformed one is ERR_INVALID_INPUT naming the position. */
export function parseBodyCondition(source: string): BodyTest[] {
  const reader = new Reader(source);
  const tests = [readTest(reader)];
  for (;;) {
    reader.skipSpace();
    if (reader.atEnd()) break;
    if (reader.take(/^and\b/i) === undefined) reader.fail('"and" or the end');
    tests.push(readTest(reader));
  }
  if (tests.length > maxBodyTests) throw new ConveyorError('ERR_INVALID_INPUT', `Body condition "${source}": at most ${maxBodyTests} tests joined by "and"`);
  return tests;
}
