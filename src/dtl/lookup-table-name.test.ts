import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { checkLookupName, lookupNameProblem } from './lookup-table-name.ts';
import { parseLookupTableXml } from './lookup-table-xml.ts';

describe('lookup table names', () => {
  it.each(['Gender', 'Demo.Gender', 'HL7 codes', 'a-b_c', 'Été', 'exports', 'x'.repeat(100)])('accepts %s', (name) => {
    expect(lookupNameProblem(name)).toBeNull();
  });

  it.each([
    ['', 'a lookup table needs a name'],
    ['..', '".." cannot name a lookup table'],
    ['.', '"." cannot name a lookup table'],
    ['a\u0000b', 'the lookup table name "a\\u0000b" contains a control character'],
    ['line\nbreak', 'the lookup table name "line\\nbreak" contains a control character'],
    ['a/b', 'the lookup table name "a/b" contains "/" or "\\"'],
    ['a,b', 'the lookup table name "a,b" contains ","; GET /lookups/export?table= lists names with commas'],
    ['export', '"export" is reserved (GET /lookups/export is a route of its own); choose another name'],
    ['import', '"import" is reserved (GET /lookups/import is a route of its own); choose another name'],
    ['x'.repeat(101), `the lookup table name "${'x'.repeat(20)}"… is longer than 100 characters once URL-encoded`],
  ])('refuses %j', (name, problem) => {
    expect(lookupNameProblem(name)).toBe(problem);
    try {
      checkLookupName(name);
      expect.unreachable();
    } catch (error) {
      expect(isConveyorError(error, 'ERR_INVALID_INPUT')).toBe(true);
      expect((error as Error).message).toBe(`Invalid lookup table name: ${problem}`);
    }
  });

  it('refuses a reserved name in an imported export, at the attribute', () => {
    expect(() => parseLookupTableXml('<lookupTable>\n<entry table="export" key="k">v</entry>\n</lookupTable>')).toThrow(
      'lookup table:2:15: "export" is reserved (GET /lookups/export is a route of its own); choose another name',
    );
  });
});
