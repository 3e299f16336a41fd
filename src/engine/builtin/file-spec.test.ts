import { describe, expect, it } from 'vitest';
import { fileSpecMatcher } from './file-spec.ts';

describe('FileSpec', () => {
  it('matches any of its ;-separated wildcard patterns, each against the whole name', () => {
    const matches = fileSpecMatcher('*.txt; order-??.csv');
    expect(['a.txt', 'order-12.csv'].every(matches)).toBe(true);
    expect(['a.txt.bak', 'order-123.csv', 'b.csv'].some(matches)).toBe(false);
  });

  it('matches every name when empty', () => {
    expect(fileSpecMatcher('')('anything.bin')).toBe(true);
    expect(fileSpecMatcher(' ; ')('x')).toBe(true);
  });
});
