import { describe, expect, it } from 'vitest';
import { canonicalNumber, collate, compareCollation, keyValue } from './collation.ts';
import { Dec } from './decimal.ts';

describe('IRIS subscript collation', () => {
  it('knows canonical numbers: what ObjectScript prints for the value itself', () => {
    for (const key of ['0', '7', '-3', '1.5', '.5', '-.25', '12345678901234567890']) expect(canonicalNumber(key), key).not.toBeNull();
    for (const key of ['', '07', '1.50', '0.5', '-0', '1e3', '+1', ' 1', '1 ', '1.', '12345678901234567891', 'x1'])
      expect(canonicalNumber(key), key).toBeNull();
  });

  it('puts canonical numbers first in numeric order, then strings by code point', () => {
    expect(collate(['b', '10', '9', '-1', 'a', '1.5', '07', 'B', '.5', '-0'])).toEqual(['-1', '.5', '1.5', '9', '10', '-0', '07', 'B', 'a', 'b']);
    // Exact decimal order where doubles cannot tell the numbers apart.
    expect(collate(['9007199254740993', '9007199254740992'])).toEqual(['9007199254740992', '9007199254740993']);
    // Code points, not UTF-16 units: U+FF5E before U+1F600 (its surrogates are U+D83D…).
    expect(compareCollation('\u{FF5E}', '\u{1F600}')).toBeLessThan(0);
    expect(compareCollation('ab', 'a')).toBeGreaterThan(0);
    expect(compareCollation('2', '2')).toBe(0);
  });

  it('hands keys to the loop as numbers when canonical', () => {
    expect(keyValue('10')).toBe(10);
    expect(keyValue('.5')).toBe(0.5);
    expect(keyValue('07')).toBe('07');
    const big = keyValue('9007199254740993');
    expect(big).toBeInstanceOf(Dec);
    expect(String(big)).toBe('9007199254740993');
  });
});
