/**
 * The hostile values the suite sends. Wrong-typed values are checked against the declared schema
 * (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it), so a value is only sent as "wrong" when the
 * document itself says it is; the hostile strings are valid strings that name things which cannot
 * exist (paths out of the home, NUL bytes, names of 100,000 characters).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from './openapi-routes.ts';

/** A value to put in a body, as JSON text (deeply nested values cannot go through JSON.stringify). */
export interface BodyValue {
  label: string;
  json: string;
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const compiled = new WeakMap<JsonSchema, (value: unknown) => boolean>();

const textAjv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, coerceTypes: true });
const compiledText = new WeakMap<JsonSchema, (value: unknown) => boolean>();

/** Whether a path or query value (text, or texts when repeated; converted as the schema's type says) fits the schema. */
export function acceptsText(schema: JsonSchema, text: string | string[]): boolean {
  let check = compiledText.get(schema);
  if (!check) {
    const validate = textAjv.compile({ type: 'object', properties: { value: schema } });
    check = (candidate: unknown) => validate({ value: candidate }) === true;
    compiledText.set(schema, check);
  }
  return check(text);
}

export function accepts(schema: JsonSchema, value: unknown): boolean {
  let check = compiled.get(schema);
  if (!check) {
    const validate = ajv.compile(schema);
    check = (candidate: unknown) => validate(candidate) === true;
    compiled.set(schema, check);
  }
  return check(value);
}

export const deepDepth = 10_000;
export const hugeArrayLength = 100_000;
export const longStringLength = 100_000;

/** `[[[…]]]` ten thousand levels deep, as text. */
export function deepArrayText(depth = deepDepth): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** `{"a":{"a":…}}` ten thousand levels deep, as text. */
export function deepObjectText(depth = deepDepth): string {
  return '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
}

/** One value of every JSON type; the schema decides which of them are wrong. */
const typeSamples: Array<{ label: string; value: unknown }> = [
  { label: 'a string', value: 'text' },
  { label: 'an empty string', value: '' },
  { label: 'a number', value: 42 },
  { label: 'true', value: true },
  { label: 'an empty array', value: [] },
  { label: 'an array of strings', value: ['x'] },
  { label: 'an empty object', value: {} },
  { label: 'an object with a field a', value: { a: 1 } },
  { label: 'null', value: null },
];

/** Edge numbers, sent where the schema takes numbers (elsewhere one number says all). */
const numberSamples: Array<{ label: string; value: unknown }> = [
  { label: 'a negative number', value: -1 },
  { label: 'a fraction', value: 1.5 },
  { label: 'a number out of range', value: 1e308 },
  { label: 'an unsafe integer', value: 9_007_199_254_740_993 },
];

/** Values of the wrong type (or out of the declared range) for a property with this schema. */
export function wrongValues(schema: JsonSchema): BodyValue[] {
  const values: BodyValue[] = [];
  const numeric = accepts(schema, 42) || accepts(schema, 1.5);
  for (const { label, value } of [...typeSamples, ...(numeric ? numberSamples : [])]) {
    if (!accepts(schema, value)) values.push({ label, json: JSON.stringify(value) });
  }
  if (Array.isArray(schema.enum) || schema.const !== undefined) {
    if (!accepts(schema, 'not-one-of-them')) values.push({ label: 'a value outside its enum', json: JSON.stringify('not-one-of-them') });
  }
  if (typeof schema.maxLength === 'number') values.push({ label: 'a string over its maxLength', json: JSON.stringify('x'.repeat(schema.maxLength + 1)) });
  if (!accepts(schema, [[]])) values.push({ label: `an array ${deepDepth} levels deep`, json: deepArrayText() });
  if (!accepts(schema, { a: {} })) values.push({ label: `an object ${deepDepth} levels deep`, json: deepObjectText() });
  if (!accepts(schema, [null])) values.push({ label: `an array of ${hugeArrayLength} nulls`, json: `[${Array(hugeArrayLength).fill('null').join(',')}]` });
  return values;
}

/** Strings that can name nothing a client may reach: out of the home, NUL bytes, absurd lengths. */
export const hostileNames: Array<{ label: string; value: string; creates: boolean }> = [
  { label: 'a ../ path', value: '../../../../etc/passwd', creates: true },
  { label: 'the name ..', value: '..', creates: true },
  { label: 'an absolute path', value: '/etc/passwd', creates: true },
  { label: 'a NUL byte', value: 'bad\u0000name', creates: true },
  { label: 'a backslash path', value: '..\\..\\windows', creates: true },
  { label: `a name of ${longStringLength} characters`, value: 'n'.repeat(longStringLength), creates: true },
  { label: 'unicode with a right-to-left override', value: 'n\u00e4me-\u202eevil-\u{1F4A3}', creates: false },
  { label: 'a name that does not exist', value: 'no-such-thing-bad-input', creates: false },
];

/** The hostile names as query values: a URL carries at most a few kilobytes, so the long one is 5000 characters. */
export const hostileQueryValues = hostileNames.map((hostile) =>
  hostile.value.length > 5000 ? { ...hostile, label: 'a value of 5000 characters', value: 'n'.repeat(5000) } : hostile,
);

/** Path segments (percent-encoded) for a path parameter: hostile, unknown, and for ids, bad numbers. */
export function hostilePathSegments(isId: boolean, creates: boolean): Array<{ label: string; segment: string }> {
  const segments = [
    { label: 'the segment ..', segment: '..', creates: true },
    { label: 'an encoded ../ path', segment: encodeURIComponent('../../../../etc/passwd'), creates: true },
    { label: 'an encoded absolute path', segment: encodeURIComponent('/etc/passwd'), creates: true },
    { label: 'an encoded NUL byte', segment: 'bad%00name', creates: true },
    { label: 'a segment of 5000 characters', segment: 'n'.repeat(5000), creates: true },
    { label: 'unicode with a right-to-left override', segment: encodeURIComponent('n\u00e4me-\u202eevil'), creates: false },
    { label: 'a name that does not exist', segment: 'no-such-thing-bad-input', creates: false },
    { label: 'invalid percent-encoding', segment: 'bad%zzname', creates: true },
  ];
  const ids = [
    { label: 'a negative id', segment: '-1', creates: false },
    { label: 'the id 0', segment: '0', creates: false },
    { label: 'a fractional id', segment: '1.5', creates: false },
    { label: 'an id out of range', segment: '99999999999999999999999', creates: false },
    { label: 'an id that does not exist', segment: '987654321', creates: false },
  ];
  return [...segments, ...(isId ? ids : [])].filter((entry) => !creates || entry.creates);
}

/** Numbers a count, size or id can never be, which a schema without bounds still lets through. */
export const hostileNumbers: BodyValue[] = [
  { label: 'a negative number', json: '-1' },
  { label: 'a number out of range', json: '1e308' },
  { label: 'a number literal beyond a double', json: '1e400' },
];

/** Documents for the properties that carry XML (a transform's source, a lookup export): too deep to be real. */
export const hostileXml: BodyValue[] = [
  { label: `XML ${deepDepth} elements deep`, json: JSON.stringify(`${'<a>'.repeat(deepDepth)}${'</a>'.repeat(deepDepth)}`) },
  {
    label: 'XML with an external entity',
    json: JSON.stringify(
      '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><lookupTable><entry table="T" key="k">&x;</entry></lookupTable>',
    ),
  },
  { label: 'XML that is not closed', json: JSON.stringify('<transform sourceClass="IOP.Message"><assign') },
];

/** Bad values of a numeric query parameter (`top`, `since_id`, `limit`, …). */
export const badNumbers: Array<{ label: string; value: string }> = [
  { label: 'not a number', value: 'abc' },
  { label: 'a negative number', value: '-1' },
  { label: 'a fraction', value: '1.5' },
  { label: 'an exponent out of range', value: '1e999' },
  { label: 'an integer out of range', value: '99999999999999999999999' },
  { label: 'a hex number', value: '0x10' },
];
