import { describe, expect, it } from 'vitest';
import { DtlSyntaxError } from './diagnostics.ts';
import { parseVPath } from './vpath.ts';

const at = { line: 3, column: 10 };
const shape = (text: string): unknown[] => parseVPath(text, at).map((s) => (s.kind === 'member' ? s.name : s.index));

describe('parseVPath', () => {
  it('parses names, positions, variables, all, count, last and keys', () => {
    expect(shape('list_post(2).Title')).toEqual(['list_post', { k: 'num', n: 2 }, 'Title']);
    expect(shape('items(k).sku')).toEqual(['items', { k: 'var', name: 'k' }, 'sku']);
    expect(shape('list()')).toEqual(['list', { k: 'all' }]);
    expect(shape('items("*")')).toEqual(['items', { k: 'count' }]);
    expect(shape('items(*)')).toEqual(['items', { k: 'count' }]);
    expect(shape('items(-)')).toEqual(['items', { k: 'last' }]);
    expect(shape('dict("a b")')).toEqual(['dict', { k: 'key', key: 'a b' }]);
    expect(shape('list(2)(2)')).toEqual(['list', { k: 'num', n: 2 }, { k: 'num', n: 2 }]);
  });

  it('positions each step inside the attribute', () => {
    expect(parseVPath('a.bc', at)[1]!.pos).toEqual({ line: 3, column: 12 });
  });

  it('rejects bad paths with the position of the problem', () => {
    const cases: [string, RegExp, number][] = [
      ['a..b', /unexpected "\." in path/, 12],
      ['a.', /ends with "\."/, 11],
      ['a(0)', /positions start at 1/, 11],
      ['a(1+2)', /bad index/, 11],
      ['a(2', /unclosed "\("/, 11],
      ['PID:5.1', /HL7-style Segment:Field paths are not supported/, 13],
      ['', /empty path/, 10],
    ];
    for (const [text, message, column] of cases) {
      try {
        parseVPath(text, at);
        expect.unreachable(text);
      } catch (error) {
        expect(error).toBeInstanceOf(DtlSyntaxError);
        expect((error as DtlSyntaxError).message).toMatch(message);
        expect((error as DtlSyntaxError).position).toEqual({ line: 3, column });
      }
    }
  });
});
