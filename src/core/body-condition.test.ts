import { describe, expect, it } from 'vitest';
import { maxBodyTests, parseBodyCondition } from './body-condition.ts';

describe('parseBodyCondition', () => {
  it('reads paths, operators and JSON literals', () => {
    expect(parseBodyCondition('$.patient.id = 42')).toEqual([{ path: ['patient', 'id'], op: 'equals', value: 42 }]);
    expect(parseBodyCondition('  $.name CONTAINS "ur\\"gent"  ')).toEqual([{ path: ['name'], op: 'contains', value: 'ur"gent' }]);
    expect(parseBodyCondition('$.items[3]["full name"] = -1.5e2')).toEqual([{ path: ['items', 3, 'full name'], op: 'equals', value: -150 }]);
    expect(parseBodyCondition('$=null')).toEqual([{ path: [], op: 'equals', value: null }]);
    expect(parseBodyCondition('$.a = true and $.b = FALSE AND $.c-d = "x"')).toEqual([
      { path: ['a'], op: 'equals', value: true },
      { path: ['b'], op: 'equals', value: false },
      { path: ['c-d'], op: 'equals', value: 'x' },
    ]);
  });

  it.each([
    ['', 'a path starting with $ at position 1'],
    ['patient.id = 4', 'a path starting with $'],
    ['$.patient.id', '"=" or "contains" at position 13'],
    ['$.patient. = 4', 'a member name after "."'],
    ['$.a[x] = 1', 'an array index or a quoted member name'],
    ['$.a[1 = 1', '"]"'],
    ['$.a = urgent', 'a JSON value'],
    ['$.a = "open', 'a JSON value'],
    ['$.a contains 4', 'a "quoted string" after contains'],
    ['$.a = 1 or $.b = 2', '"and" or the end at position 9'],
    ['$["a\\"b"] = 1', 'a member name without quotes or backslashes'],
    ['$.a = 1e999', 'a finite number'],
  ])('refuses %j naming what it expected', (source, expected) => {
    expect(() => parseBodyCondition(source)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_INPUT', message: expect.stringContaining(expected) }));
  });

  it('refuses more tests than a search evaluates', () => {
    const many = Array.from({ length: maxBodyTests + 1 }, (_, i) => `$.f${i} = ${i}`).join(' and ');
    expect(() => parseBodyCondition(many)).toThrow(/at most 8 tests/);
  });
});
