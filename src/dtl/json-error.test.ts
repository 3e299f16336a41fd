import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from './json-error.ts';

describe('jsonErrorOffset', () => {
  it('accepts valid JSON', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]} ', '"s"', '0']) expect(jsonErrorOffset(text), text).toBe(-1);
  });

  it('points at the first wrong character', () => {
    expect(jsonErrorOffset('{"a": }')).toBe(6);
    expect(jsonErrorOffset('{"a" 1}')).toBe(5);
    expect(jsonErrorOffset('[1, 2,]')).toBe(6);
    expect(jsonErrorOffset("{'a': 1}")).toBe(1);
    expect(jsonErrorOffset('[01]')).toBe(2);
    expect(jsonErrorOffset('{"a": 1} x')).toBe(9);
    expect(jsonErrorOffset('"abc')).toBe(4);
    expect(jsonErrorOffset('[1, 2')).toBe(5);
  });
});
