import { describe, expect, it } from 'vitest';
import { collate } from './collation.ts';
import { MISSING, nextKey, PathError, readPath, writePath, type ResolvedStep } from './json-path.ts';
import { Fanout } from './values.ts';

const m = (name: string): ResolvedStep => ({ t: 'member', name });
const at = (n: number): ResolvedStep => ({ t: 'pos', n });
const ALL: ResolvedStep = { t: 'all' };

describe('readPath', () => {
  const doc = {
    string: 'Foo',
    post: { Title: 'Foo' },
    list_str: ['Foo', 'Bar'],
    list: ['Foo', ['Bar', 'Baz']],
    list_post: [{ Title: 'Bar' }, { Title: 'Foo' }],
    d: { '2': 'two', b: 'bee' },
  };

  it('follows IoP GetValueAt vectors G1–G7 (1-based positions)', () => {
    expect(readPath(doc, [m('string')])).toBe('Foo');
    expect(readPath(doc, [m('post'), m('Title')])).toBe('Foo');
    expect(readPath(doc, [m('list_post'), at(2), m('Title')])).toBe('Foo');
    expect(readPath(doc, [m('list_str'), at(2)])).toBe('Bar');
    expect(readPath(doc, [m('list_str'), ALL])).toEqual(new Fanout(['Foo', 'Bar']));
    expect(readPath(doc, [m('list_str')])).toEqual(['Foo', 'Bar']);
    expect(readPath(doc, [m('list'), at(2), at(2)])).toBe('Baz');
  });

  it('returns MISSING for absent keys, indexes past the end and steps into scalars', () => {
    expect(readPath(doc, [m('nope')])).toBe(MISSING);
    expect(readPath(doc, [m('list_str'), at(3)])).toBe(MISSING);
    expect(readPath(doc, [m('string'), m('x')])).toBe(MISSING);
    expect(readPath(doc, [m('nope'), m('deeper')])).toBe(MISSING);
  });

  it('fans out, counts, takes the last element and reads object members by position', () => {
    expect(readPath(doc, [m('list_post'), ALL, m('Title')])).toEqual(new Fanout(['Bar', 'Foo']));
    expect(readPath(doc, [m('list_post'), { t: 'count' }])).toBe(2);
    expect(readPath(doc, [m('nope'), { t: 'count' }])).toBe(0);
    expect(readPath(doc, [m('list_str'), { t: 'last' }])).toBe('Bar');
    expect(readPath(doc, [m('d'), at(2)])).toBe('two');
    expect(readPath(doc, [m('d'), ALL])).toEqual(new Fanout(['two', 'bee']));
  });
});

describe('writePath', () => {
  it('follows IoP SetValueAt vectors S1–S5', () => {
    const s1 = { string: 'Foo', integer: 42 };
    writePath(s1, [m('string')], 'set', '', 'Bar');
    expect(s1).toEqual({ string: 'Bar', integer: 42 });
    const s3 = {};
    writePath(s3, [m('post'), m('Title')], 'set', '', 'Bar');
    expect(s3).toEqual({ post: { Title: 'Bar' } });
    const s4 = {};
    writePath(s4, [m('post')], 'append', '', 'Bar');
    expect(s4).toEqual({ post: ['Bar'] });
    const s5 = { post: ['Foo'] };
    writePath(s5, [m('post')], 'append', '', 'Bar');
    expect(s5).toEqual({ post: ['Foo', 'Bar'] });
  });

  it('creates lists for positions, appends at length+1 and pads beyond', () => {
    const doc: Record<string, unknown> = {};
    writePath(doc, [m('lines'), at(1), m('sku')], 'set', '', 'A1');
    writePath(doc, [m('lines'), at(2), m('sku')], 'set', '', 'B2');
    writePath(doc, [m('pad'), at(3)], 'set', '', 'x');
    expect(doc).toEqual({ lines: [{ sku: 'A1' }, { sku: 'B2' }], pad: [null, null, 'x'] });
  });

  it('sets, inserts and removes by key on lists and objects; clears collections', () => {
    const doc = { list: ['a', 'b', 'c', 'd'], dict: { x: 1, y: 2 }, other: [1, 2] };
    writePath(doc, [m('list')], 'insert', 2, 'Z');
    writePath(doc, [m('list')], 'remove', '4', '');
    writePath(doc, [m('list')], 'set', '1', 'A');
    writePath(doc, [m('dict')], 'remove', 'x', '');
    writePath(doc, [m('dict')], 'insert', 'z', 3);
    writePath(doc, [m('other')], 'clear', '', '');
    expect(doc).toEqual({ list: ['A', 'Z', 'b', 'd'], dict: { y: 2, z: 3 }, other: [] });
  });

  it('removes the addressed node and ignores absent ones', () => {
    const doc = { a: { b: 1, c: 2 }, l: [1, 2, 3] };
    writePath(doc, [m('a'), m('b')], 'remove', '', '');
    writePath(doc, [m('l'), at(2)], 'remove', '', '');
    writePath(doc, [m('zz')], 'remove', '', '');
    expect(doc).toEqual({ a: { c: 2 }, l: [1, 3] });
  });

  it('writes through a () step into every existing element', () => {
    const doc = { items: [{ n: 1 }, { n: 2 }] };
    writePath(doc, [m('items'), ALL, m('flag')], 'set', '', 'Y');
    expect(doc.items).toEqual([
      { n: 1, flag: 'Y' },
      { n: 2, flag: 'Y' },
    ]);
  });

  it('stores a "__proto__" key as data, never as the prototype', () => {
    const doc: Record<string, unknown> = {};
    writePath(doc, [m('__proto__'), m('polluted')], 'set', '', 1);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['__proto__']);
    expect(readPath(doc, [m('__proto__'), m('polluted')])).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('raises PathError for writes that cannot be done', () => {
    expect(() => writePath({ s: 'x' }, [m('s'), m('t')], 'set', '', 1)).toThrow(PathError);
    expect(() => writePath({ s: 'x' }, [m('s')], 'append', '', 1)).toThrow(/not a list/);
    expect(() => writePath({ l: [] }, [m('l')], 'insert', '5', 1)).toThrow(/cannot insert at position 5/);
    expect(() => writePath({ l: [1] }, [m('l')], 'set', 'k', 1)).toThrow(/not a list position/);
    expect(() => writePath({ s: 'x' }, [m('s')], 'clear', '', 1)).toThrow(/not a collection/);
  });
});

describe('iteration helpers', () => {
  it('gives foreach keys: 1..n for lists, collation order for objects, one for a present scalar', () => {
    expect([nextKey(['a', 'b'], ''), nextKey(['a', 'b'], 1), nextKey(['a', 'b'], 2)]).toEqual([1, 2, '']);
    expect(nextKey([], '')).toBe('');
    expect(nextKey(MISSING, '')).toBe('');
    expect(nextKey({ b: 1, '10': 2, '9': 3, a: 4 }, '')).toBe(9);
    expect(nextKey({ b: 1, '10': 2, '9': 3, a: 4 }, 10)).toBe('a');
    expect(nextKey({ b: 1, '10': 2, '9': 3, a: 4 }, 9.5)).toBe(10);
    expect(nextKey('', '')).toBe(1);
    expect(nextKey('x', 1)).toBe('');
    expect(collate(['b', '2', '-1', 'a', '10', '1.5'])).toEqual(['-1', '1.5', '2', '10', 'a', 'b']);
  });
});
