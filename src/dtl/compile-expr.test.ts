import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { compileExpr } from './compile-expr.ts';
import { newContext, ObjectScriptError, type RunContext } from './context.ts';
import { DtlSyntaxError } from './diagnostics.ts';
import { parseExpression } from './expr-parser.ts';
import type { DtlHost } from './types.ts';
import { toJson, toStr } from './values.ts';

function context(source: unknown = {}, host: DtlHost = {}, locals: Record<string, unknown> = {}): RunContext {
  const ctx = newContext({ source, target: {}, aux: '', host, params: defaultParameters(), document: 'd' });
  Object.assign(ctx.locals, locals);
  return ctx;
}

const ev = (text: string, ctx = context()): unknown => compileExpr(parseExpression(text, { line: 1, column: 1 }))(ctx);
const s = (text: string, ctx?: RunContext): string => toStr(ev(text, ctx));

describe('expression operators', () => {
  it('evaluates arithmetic left to right in decimal', () => {
    expect(s('1+2*3')).toBe('9');
    expect(s('2*3+1')).toBe('7');
    expect(s('10-2-3')).toBe('5');
    expect(s('.1+.2')).toBe('.3');
    expect(s('10/4')).toBe('2.5');
    expect(s('7\\2')).toBe('3');
    expect(s('-7#3')).toBe('2');
    expect(s('2**10')).toBe('1024');
    expect(s('-"3"')).toBe('-3');
    expect(s('+"02134"')).toBe('2134');
  });

  it('concatenates string forms', () => {
    expect(ev('3_4')).toBe('34');
    expect(s('1.50_"x"')).toBe('1.5x');
  });

  it('compares: = on strings, < > on numbers', () => {
    expect(s('"1"=1')).toBe('1');
    expect(s('"1.0"=1')).toBe('0');
    expect(s('"01"=1')).toBe('0');
    expect(s('"a"\'="b"')).toBe('1');
    expect(s('"10">"9"')).toBe('1');
    expect(s('"abc"<1')).toBe('1');
    expect(s('3<=3')).toBe('1');
    expect(s('3>=4')).toBe('0');
    expect(s("3'<2")).toBe('1');
    expect(s("3'>2")).toBe('0');
  });

  it('tests contains, follows and sorts-after', () => {
    expect(s('"abc"["b"')).toBe('1');
    expect(s('"abc"[""')).toBe('1');
    expect(s('"abc"\'["z"')).toBe('1');
    expect(s('"b"]"a"')).toBe('1');
    expect(s('"b"\']"a"')).toBe('0');
    expect(s('"10"]]"9"')).toBe('1');
    expect(s('"a"]]"9"')).toBe('1');
    expect(s('"9"]]"a"')).toBe('0');
    expect(s('"9"\']]"a"')).toBe('1');
  });

  it('combines truth values, short-circuiting && and ||', () => {
    expect(s('1&0')).toBe('0');
    expect(s('1!0')).toBe('1');
    expect(s('0&&undefinedVar')).toBe('0');
    expect(s('1||undefinedVar')).toBe('1');
    expect(s('\'"yes"')).toBe('1');
    expect(s('x=1&y=2', context({}, {}, { x: 1, y: 2 }))).toBe('0');
  });

  it('matches patterns, also indirect ones', () => {
    expect(s('"123-45-6789"?3N1"-"2N1"-"4N')).toBe('1');
    expect(s('"12-45"?3N1"-"2N')).toBe('0');
    expect(s('"abc"?1.A')).toBe('1');
    expect(s('"ab1"?.A')).toBe('0');
    expect(s('"x"?1(1"x",1"y")')).toBe('1');
    expect(s('"AB"\'?2L')).toBe('1');
    expect(s('"12"?@p', context({}, {}, { p: '2N' }))).toBe('1');
  });

  it('reads paths: absent reads as "", fan-out gives a list', () => {
    const ctx = context({ a: { b: 'x' }, list: [{ n: 1 }, { n: 2 }], flag: true, nul: null });
    expect(ev('source.{a.b}', ctx)).toBe('x');
    expect(ev('source.a.b', ctx)).toBe('x');
    expect(ev('source.{missing.deep}', ctx)).toBe('');
    expect(toJson(ev('source.{list().n}', ctx))).toEqual([1, 2]);
    expect(s('source.{list("*")}', ctx)).toBe('2');
    expect(s('source.{flag}+1', ctx)).toBe('2');
    expect(s('"x"_source.{nul}_"y"', ctx)).toBe('xy');
  });

  it('raises <UNDEFINED> and <DIVIDE> with the position of the culprit', () => {
    expect(() => ev('1+nope')).toThrow(ObjectScriptError);
    try {
      ev('"a"_nope');
    } catch (error) {
      expect((error as ObjectScriptError).message).toBe('<UNDEFINED> nope');
      expect((error as ObjectScriptError).pos).toEqual({ line: 1, column: 5 });
    }
    try {
      ev('1/0');
    } catch (error) {
      expect((error as ObjectScriptError).message).toBe('<DIVIDE> division by zero');
      expect((error as ObjectScriptError).pos).toEqual({ line: 1, column: 2 });
    }
  });

  it('reads with $GET and $DATA without raising <UNDEFINED>', () => {
    const ctx = context({ a: 1 }, {}, { v: 'x' });
    expect(ev('$GET(v)', ctx)).toBe('x');
    expect(ev('$G(nope,"d")', ctx)).toBe('d');
    expect(s('$D(nope)', ctx)).toBe('0');
    expect(s('$D(source.{a})', ctx)).toBe('1');
    expect(s('$D(source.{b})', ctx)).toBe('0');
  });

  it('evaluates $CASE and $SELECT, raising when nothing matches', () => {
    expect(ev('$CASE(2,1:"a",2:"b",:"z")')).toBe('b');
    expect(ev('$CASE(9,1:"a",:"z")')).toBe('z');
    expect(() => ev('$CASE(9,1:"a")')).toThrow(/<ILLEGAL VALUE>/);
    expect(ev('$S(0:"a",1:"b")')).toBe('b');
    expect(() => ev('$S(0:"a")')).toThrow(/<SELECT>/);
  });

  it('calls class methods through the host, and the function set by class name', () => {
    const host: DtlHost = { classMethod: (cls, method, args) => `${cls}.${method}(${args.map(toStr).join(',')})` };
    expect(ev('##class(My.Util).Go(1,"b")', context({}, host))).toBe('My.Util.Go(1,b)');
    expect(ev('##class(Ens.Util.FunctionSet).ToUpper("x")')).toBe('X');
    expect(() => ev('##class(My.Util).Go()')).toThrow(/<CLASS DOES NOT EXIST> My\.Util/);
    expect(ev('##class(Ens.Util.Time).ConvertDateTime("20240305","%Y%m%d","%d.%m.%Y")')).toBe('05.03.2024');
    expect(ev('$SYSTEM.Encryption.Base64Encode("hello")')).toBe('aGVsbG8=');
    expect(ev('##class(%SYSTEM.Encryption).Base64Decode("aGVsbG8=")')).toBe('hello');
    expect(() => ev('$SYSTEM.Encryption.Base64Encode("€")')).toThrow(/needs a binary string/);
    expect(() => ev('$SYSTEM.Encryption.Base64Decode("***")')).toThrow(/not Base64/);
    expect(() => ev('##class(Ens.Util.FunctionSet).ToUpper()')).toThrow(/takes 1 argument/);
  });

  it('refuses unknown functions, wrong argument counts and misplaced * at compile time', () => {
    const cases: [string, RegExp, number][] = [
      ['..Frobnicate(1)', /unknown function \.\.Frobnicate/, 1],
      ['1+..ToUpper()', /\.\.ToUpper takes 1 argument\(s\), 0 given/, 3],
      ['..InFile(1,2)', /not supported: file membership/, 1],
      ['$ZZZ(1)', /unknown function \$ZZZ/, 1],
      ['$NOPE', /unknown special variable \$NOPE/, 1],
      ['$P(1)', /\$PIECE takes 2 to 4 argument/, 1],
      ['*+1', /only allowed as a position in \$EXTRACT/, 1],
      ['$GET(1)', /\$GET needs a variable/, 6],
    ];
    for (const [text, message, column] of cases) {
      try {
        ev(text);
        expect.unreachable(text);
      } catch (error) {
        expect(error, text).toBeInstanceOf(DtlSyntaxError);
        expect((error as DtlSyntaxError).message, text).toMatch(message);
        expect((error as DtlSyntaxError).position.column, text).toBe(column);
      }
    }
  });
});
