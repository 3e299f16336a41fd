import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { compileExpr } from './compile-expr.ts';
import { newContext } from './context.ts';
import { parseExpression } from './expr-parser.ts';
import type { DtlHost } from './types.ts';
import { toStr } from './values.ts';

const tables: Record<string, Record<string, string>> = { Gender: { M: 'Male', F: 'Female' } };
const host: DtlHost = {
  lookup: (t, k) => tables[t]?.[k],
  now: () => new Date(2024, 2, 5, 14, 30, 7),
};

function s(text: string, h: DtlHost = host): string {
  const ctx = newContext({ source: {}, target: {}, aux: '', host: h, params: defaultParameters(), document: 'd' });
  return toStr(compileExpr(parseExpression(text, { line: 1, column: 1 }))(ctx));
}

describe('function set (..Name)', () => {
  it('Contains, StartsWith and their negations', () => {
    expect(s('..Contains("abc","b")')).toBe('1');
    expect(s('..DoesNotContain("abc","b")')).toBe('0');
    expect(s('..StartsWith("abc","ab")')).toBe('1');
    expect(s('..DoesNotStartWith("abc","b")')).toBe('1');
  });

  it('In / NotIn with the comma list, a custom separator and wrapped items', () => {
    expect(s('..In("b","a,b,c")')).toBe('1');
    expect(s('..In("d","a,b,c")')).toBe('0');
    expect(s('..In("b","a|b|c,,|")')).toBe('1');
    expect(s('..In("b","<a><b><c>,,<>")')).toBe('1');
    expect(s('..NotIn("z","a,b")')).toBe('1');
  });

  it('IntersectsList / DoesNotIntersectList', () => {
    expect(s('..IntersectsList("<x><b>","<a><b><c>")')).toBe('1');
    expect(s('..IntersectsList("x,y","a,b,c",",",",")')).toBe('0');
    expect(s('..DoesNotIntersectList("<x>","<a>")')).toBe('1');
  });

  it('Like / NotLike with % and _ and an escape character', () => {
    expect(s('..Like("hello","h%o")')).toBe('1');
    expect(s('..Like("hello","h_llo")')).toBe('1');
    expect(s('..Like("hello","h_o")')).toBe('0');
    expect(s('..Like("%SYSVAR_X","#%SYSVAR#_%%%#")')).toBe('1');
    expect(s('..Like("ASYSVARXX","#%SYSVAR#_%%%#")')).toBe('0');
    expect(s('..NotLike("abc","a%")')).toBe('0');
  });

  it('Matches / DoesNotMatch (ObjectScript patterns) and RegexMatch', () => {
    expect(s('..Matches("123-45-6789","3N1""-""2N1""-""4N")')).toBe('1');
    expect(s('..DoesNotMatch("12","3N")')).toBe('1');
    expect(s('..RegexMatch("abc123","[a-z]+\\d+")')).toBe('1');
    expect(s('..RegexMatch("abc123x","[a-z]+\\d+")')).toBe('0');
    expect(() => s('..RegexMatch("a","(")')).toThrow(/<REGULAR EXPRESSION>/);
  });

  it('Lookup with default and every defaultOnEmptyInput mode; Exists', () => {
    expect(s('..Lookup("Gender","F")')).toBe('Female');
    expect(s('..Lookup("Gender","m","?")')).toBe('?');
    expect(s('..Lookup("Gender","","?",0)')).toBe('');
    expect(s('..Lookup("Gender","","?",1)')).toBe('');
    expect(s('..Lookup("Gender","","?",2)')).toBe('?');
    expect(s('..Lookup("Gender","","?",3)')).toBe('?');
    expect(s('..Lookup("","M","?",1)')).toBe('?');
    expect(s('..Lookup("","M","?",2)')).toBe('');
    expect(s('..Lookup("Nope","M","?")')).toBe('?');
    expect(s('..Exists("Gender","M")')).toBe('1');
    expect(s('..Exists("Gender","X")')).toBe('0');
    expect(() => s('..Lookup("Gender","M")', {})).toThrow(/lookup tables are not available/);
  });

  it('If, Not, Length, Min, Max', () => {
    expect(s('..If(1,"y","n")')).toBe('y');
    expect(s('..If("no","y","n")')).toBe('n');
    expect(s('..If(0,"y")')).toBe('');
    expect(s('..Not(0)')).toBe('1');
    expect(s('..Length("hello")')).toBe('5');
    expect(s('..Length("a,b,c",",")')).toBe('3');
    expect(s('..Max(3,"10",2)')).toBe('10');
    expect(s('..Min("3a","2OfThem")')).toBe('2');
    expect(s('..Max(,5,"")')).toBe('5');
  });

  it('Pad, Piece, ReplaceStr, Replace, Round, Strip, SubString, ToLower, ToUpper, Translate', () => {
    expect(s('..Pad("ab",5,"*")')).toBe('ab***');
    expect(s('..Pad("ab",-5,"0")')).toBe('000ab');
    expect(s('..Pad("abcdef",3)')).toBe('abcdef');
    expect(s('..Piece("a,b,c",",",2)')).toBe('b');
    expect(s('..Piece("a^b^c","^","*")')).toBe('c');
    expect(s('..Piece("a^b^c","^","*-1","*")')).toBe('b^c');
    expect(s('..Piece("a,b,c")')).toBe('a');
    expect(s('..ReplaceStr("a-b-c","-","+")')).toBe('a+b+c');
    expect(s('..Replace("aXa","a","b")')).toBe('bXb');
    expect(s('..Round(2.345,2)')).toBe('2.35');
    expect(s('..Round(2.5)')).toBe('3');
    expect(s('..Strip("  a b  ","<>W")')).toBe('a b');
    expect(s('..Strip("a1b2","*N")')).toBe('ab');
    expect(s('..Strip("x-1.2","*E",,"0123456789")')).toBe('12');
    expect(s('..SubString("hello",2,4)')).toBe('ell');
    expect(s('..SubString("hello",3)')).toBe('llo');
    expect(s('..ToLower("AbC")')).toBe('abc');
    expect(s('..ToUpper("AbC")')).toBe('ABC');
    expect(s('..Translate("hello","lo","01")')).toBe('he001');
    expect(s('..Translate("hello","l","")')).toBe('heo');
  });

  it('ConvertDateTime and CurrentDateTime', () => {
    expect(s('..ConvertDateTime("20240305","%Y%m%d","%d/%m/%Y")')).toBe('05/03/2024');
    expect(s('..ConvertDateTime("2024-03-05 14:30:00",,"%Y%m%d%H%M")')).toBe('202403051430');
    expect(s('..ConvertDateTime("3/5/2024 2:30:00 PM","%#m/%#d/%Y %#I:%M:%S %p","%Q")')).toBe('2024-03-05 14:30:00');
    expect(s('..ConvertDateTime("20240230","%Y%m%d","%Y-%m-%d")')).toBe('20240230');
    expect(s('..ConvertDateTime("garbage","%Y%m%d","%Y")')).toBe('garbage');
    expect(s('..CurrentDateTime("%Y-%m-%d %H:%M:%S")')).toBe('2024-03-05 14:30:07');
    expect(s('..CurrentDateTime()')).toBe('2024-03-05 14:30:07');
  });
});
