/**
 * The values an ObjectScript expression works on, and the conversions between them.
 *
 * A runtime value is what JSON gave us (string, number, boolean, null, object, array), a decimal
 * number produced by arithmetic (`Dec`), or a `Fanout` (the list a `()` path read returns). JSON
 * values stay untouched until an operator needs them, so a direct copy keeps the JSON type; inside
 * an expression the ObjectScript conversions apply (true → 1, false → 0, null → "").
 */
import { Dec, parseNumericPrefix } from './decimal.ts';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The list of matches of a read that fanned out over `()`. Always a list, even for 0 or 1 match. */
export class Fanout {
  readonly items: unknown[];
  constructor(items: unknown[]) {
    this.items = items;
  }
}

export type OsValue = unknown;

export function isStructure(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !(value instanceof Dec);
}

export function toStr(value: OsValue): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isSafeInteger(value) ? String(value) : Dec.fromJs(value).toString();
    case 'boolean':
      return value ? '1' : '0';
    case 'undefined':
      return '';
    case 'object':
      if (value === null) return '';
      if (value instanceof Dec) return value.toString();
      // A structure in a string context: its JSON text (IRIS would print an object reference).
      return JSON.stringify(toJson(value));
    default:
      return String(value);
  }
}

export function toNum(value: OsValue): Dec {
  if (value instanceof Dec) return value;
  switch (typeof value) {
    case 'number':
      return Dec.fromJs(value);
    case 'string':
      return parseNumericPrefix(value);
    case 'boolean':
      return value ? Dec.ONE : Dec.ZERO;
    default:
      return Dec.ZERO;
  }
}

export function truthy(value: OsValue): boolean {
  switch (typeof value) {
    case 'number':
      return value !== 0;
    case 'boolean':
      return value;
    case 'string':
      return !parseNumericPrefix(value).isZero();
    default:
      return value instanceof Dec ? !value.isZero() : false;
  }
}

export function bool(flag: boolean): Dec {
  return flag ? Dec.ONE : Dec.ZERO;
}

/**
 * Sets a member as an own property. A plain assignment of `__proto__` (a legal JSON key) would
 * replace the object's prototype instead of storing the value.
 */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** Deep copy of a JSON structure (assignments copy, never share). */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Dec) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setMember(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/** Runtime value → JSON for the target document: decimals become JSON numbers, fan-outs arrays. */
export function toJson(value: OsValue): JsonValue {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null) return value as JsonValue;
  if (value instanceof Dec) return value.toJs();
  if (value instanceof Fanout) return value.items.map(toJson);
  if (Array.isArray(value)) return value.map(toJson);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) setMember(out, key, toJson((value as Record<string, unknown>)[key]));
  return out;
}
