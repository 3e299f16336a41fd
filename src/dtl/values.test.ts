import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.ts';
import { cloneJson, Fanout, toJson, toNum, toStr, truthy } from './values.ts';

describe('ObjectScript value conversions', () => {
  it('turns JSON values into strings the ObjectScript way', () => {
    expect(toStr(true)).toBe('1');
    expect(toStr(false)).toBe('0');
    expect(toStr(null)).toBe('');
    expect(toStr(0.5)).toBe('.5');
    expect(toStr(42)).toBe('42');
    expect(toStr(Dec.fromJs(-0.25))).toBe('-.25');
    expect(toStr({ a: 1 })).toBe('{"a":1}');
  });

  it('turns values into numbers', () => {
    expect(toNum('12abc').toString()).toBe('12');
    expect(toNum(true).toString()).toBe('1');
    expect(toNum(null).toString()).toBe('0');
    expect(toNum(2.5).toString()).toBe('2.5');
  });

  it('decides truth by the numeric value', () => {
    expect(truthy('yes')).toBe(false);
    expect(truthy('1abc')).toBe(true);
    expect(truthy('')).toBe(false);
    expect(truthy(true)).toBe(true);
    expect(truthy(0)).toBe(false);
    expect(truthy(Dec.ONE)).toBe(true);
  });

  it('writes decimals as JSON numbers and fan-outs as arrays, copying structures', () => {
    const inner = { x: [1, 2] };
    const out = toJson({ n: Dec.fromJs(1.5), f: new Fanout(['a', inner]) });
    expect(out).toEqual({ n: 1.5, f: ['a', { x: [1, 2] }] });
    expect((out as { f: unknown[] }).f[1]).not.toBe(inner);
    const hostile = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.keys(cloneJson(hostile))).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(toJson(hostile))).toBe(Object.prototype);
    const copy = cloneJson(inner);
    copy.x.push(3);
    expect(inner.x).toEqual([1, 2]);
  });
});
