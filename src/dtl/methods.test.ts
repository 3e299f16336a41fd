import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { newContext, ObjectScriptError } from './context.ts';
import { callMethod } from './methods.ts';
import { toStr } from './values.ts';

const at = { line: 1, column: 1 };
const ctx = newContext({ source: {}, target: {}, aux: '', host: {}, params: defaultParameters(), document: 'd' });
const call = (target: unknown, name: string, ...args: unknown[]): string => toStr(callMethod(ctx, target, name, args, at));

describe('methods on documents and collections', () => {
  it('GetValueAt / SetValueAt use the virtual-document paths', () => {
    const doc: Record<string, unknown> = { a: { b: [10, 20] } };
    expect(call(doc, 'GetValueAt', 'a.b(2)')).toBe('20');
    expect(call(doc, 'GetValueAt', 'a.zz')).toBe('');
    expect(call(doc, 'SetValueAt', 5, 'x.y')).toBe('1');
    expect(call(doc, 'SetValueAt', 'v', 'list()', 'append')).toBe('1');
    expect(doc).toEqual({ a: { b: [10, 20] }, x: { y: 5 }, list: ['v'] });
    expect(call(doc, 'SetValueAt', 1, 'a.b.c')).toMatch(/^0 cannot set "c"/);
    ctx.locals.k = 1;
    expect(call(doc, 'GetValueAt', 'a.b(k)')).toBe('10');
    expect(() => call(doc, 'GetValueAt', 'a..b')).toThrow(/<ILLEGAL VALUE> bad path/);
  });

  it('implements the list API (1-based) and the dynamic API (0-based)', () => {
    const list: unknown[] = ['a', 'b'];
    expect(call(list, 'Count')).toBe('2');
    expect(call(list, 'GetAt', 1)).toBe('a');
    call(list, 'Insert', 'c');
    call(list, 'InsertAt', 'z', 1);
    call(list, 'SetAt', 'B', 3);
    expect(list).toEqual(['z', 'a', 'B', 'c']);
    expect(call(list, 'RemoveAt', 1)).toBe('z');
    expect(call(list, '%Get', 0)).toBe('a');
    expect(call(list, '%Size')).toBe('3');
    expect(call(list, '%IsDefined', 3)).toBe('0');
    call(list, '%Push', 'd');
    expect(call(list, '%ToJSON')).toBe('["a","B","c","d"]');
    call(list, 'Clear');
    expect(list).toEqual([]);
    const obj: Record<string, unknown> = { a: 1 };
    call(obj, '%Set', 'b', 2);
    expect(call(obj, 'IsDefined', 'b')).toBe('1');
    expect(call(obj, '%Remove', 'a')).toBe('1');
    expect(obj).toEqual({ b: 2 });
  });

  it('raises <INVALID OREF> on a non-object and <METHOD DOES NOT EXIST> for unknown methods', () => {
    expect(() => call('text', 'Count')).toThrow(ObjectScriptError);
    expect(() => call('', 'Count')).toThrow(/<INVALID OREF> cannot call Count\(\) on an empty value/);
    expect(() => call({}, 'Frob')).toThrow(/<METHOD DOES NOT EXIST> Frob/);
    expect(() => call({}, 'Insert', 1)).toThrow(/Insert\(\) needs a list/);
  });
});
