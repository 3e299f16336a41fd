/**
 * IRIS's default subscript collation, the order `$ORDER` walks an array's keys in (and what the
 * `]]` "sorts after" operator compares): canonical numbers first, in numeric order; then every other
 * string by code point. A key is a canonical number when it is exactly what ObjectScript prints for
 * its own numeric value (`+key = key`): `7`, `-3`, `1.5`, `.5`, `12345678901234567890`; not `07`,
 * `1.50`, `0.5`, `-0`, `1e3`, `+1` or the empty string.
 */
import { Dec, parseNumericPrefix } from './decimal.ts';

/** The number a canonical key stands for, or null for a key that collates as a string. */
export function canonicalNumber(key: string): Dec | null {
  if (key === '') return null;
  const value = parseNumericPrefix(key);
  return value.toString() === key ? value : null;
}

/** Code-point order (JavaScript's `<` compares UTF-16 code units, which puts U+10000… before U+E000…). */
function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const diff = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

/** Negative when `a` comes before `b` in collation order, 0 when equal, positive after. */
export function compareCollation(a: string, b: string): number {
  const na = canonicalNumber(a);
  const nb = canonicalNumber(b);
  if (na && nb) return na.cmp(nb);
  if (na || nb) return na ? -1 : 1;
  return compareCodePoints(a, b);
}

/** Keys sorted in collation order. */
export function collate(keys: string[]): string[] {
  return [...keys].sort(compareCollation);
}

/** A key as `$ORDER` hands it to the loop variable: a canonical number as a number, anything else as the string. */
export function keyValue(key: string): number | Dec | string {
  const number = canonicalNumber(key);
  if (!number) return key;
  const js = number.toJs();
  // A JavaScript number when it prints back as the key; otherwise the exact decimal.
  return Dec.fromJs(js).toString() === key ? js : number;
}
