import { describe, expect, it } from 'vitest';
import { DtlSyntaxError } from './diagnostics.ts';
import { patternFromText } from './pattern.ts';

const match = (value: string, pattern: string): boolean => patternFromText(pattern).test(value);

describe('ObjectScript patterns', () => {
  it('matches codes with counts and ranges', () => {
    expect(match('ABC', '3U')).toBe(true);
    expect(match('AbC', '3U')).toBe(false);
    expect(match('abc', '1.3L')).toBe(true);
    expect(match('', '.N')).toBe(true);
    expect(match('12345', '2.N')).toBe(true);
    expect(match('1', '2.N')).toBe(false);
    expect(match('a1', '1AN1AN')).toBe(true);
    expect(match(' ,', '2P')).toBe(true);
    expect(match('\t', '1C')).toBe(true);
    expect(match('anything', '.E')).toBe(true);
  });

  it('matches literals and alternations, over the whole string', () => {
    expect(match('555-1234', '3N1"-"4N')).toBe(true);
    expect(match('555-12345', '3N1"-"4N')).toBe(false);
    expect(match('yes', '1(1"yes",1"no")')).toBe(true);
    expect(match('maybe', '1(1"yes",1"no")')).toBe(false);
  });

  it('rejects a malformed pattern', () => {
    expect(() => patternFromText('3X')).toThrow(DtlSyntaxError);
    expect(() => patternFromText('3N)')).toThrow(/bad pattern/);
  });
});
