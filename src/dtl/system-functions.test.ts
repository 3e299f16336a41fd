import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { compileExpr } from './compile-expr.ts';
import { newContext } from './context.ts';
import { parseExpression } from './expr-parser.ts';
import { toStr } from './values.ts';

const NOW = new Date(2024, 2, 5, 14, 30, 7);

function s(text: string): string {
  const ctx = newContext({ source: {}, target: {}, aux: { a: 1 }, host: { now: () => NOW }, params: defaultParameters(), document: 'd' });
  return toStr(compileExpr(parseExpression(text, { line: 1, column: 1 }))(ctx));
}

describe('$ functions', () => {
  it('$EXTRACT with positions and * forms', () => {
    expect(s('$E("hello")')).toBe('h');
    expect(s('$EXTRACT("hello",2,4)')).toBe('ell');
    expect(s('$E("hello",*)')).toBe('o');
    expect(s('$E("hello",*-2,*)')).toBe('llo');
    expect(s('$E("hello",9)')).toBe('');
  });

  it('$PIECE, $LENGTH, $FIND', () => {
    expect(s('$P("a^b^c","^",2)')).toBe('b');
    expect(s('$PIECE("a^b^c","^",2,3)')).toBe('b^c');
    expect(s('$L("hello")')).toBe('5');
    expect(s('$L("a,b",",")')).toBe('2');
    expect(s('$L("",",")')).toBe('1');
    expect(s('$F("hello","l")')).toBe('4');
    expect(s('$F("hello","z")')).toBe('0');
    expect(s('$F("hello","l",4)')).toBe('5');
  });

  it('$TRANSLATE, $REPLACE, $ZCONVERT, $ZSTRIP, $REVERSE', () => {
    expect(s('$TR("a-b","-","+")')).toBe('a+b');
    expect(s('$TRANSLATE("a-b","-")')).toBe('ab');
    expect(s('$REPLACE("aXbX","X","y")')).toBe('aybyX'.slice(0, 4));
    expect(s('$ZCVT("hello world","U")')).toBe('HELLO WORLD');
    expect(s('$ZCONVERT("HELLO WORLD","W")')).toBe('Hello World');
    expect(s('$ZCVT("ABC","L")')).toBe('abc');
    expect(() => s('$ZCVT("a","X")')).toThrow(/<ILLEGAL VALUE>/);
    expect(s('$ZSTRIP("  a  b ","=W")')).toBe(' a b ');
    expect(s('$ZSTRIP("  a  b ","<=>W")')).toBe('a b');
    expect(s('$RE("abc")')).toBe('cba');
  });

  it('$JUSTIFY, $FNUMBER, $NUMBER, $NORMALIZE, $ZABS', () => {
    expect(s('$J(5,3)')).toBe('  5');
    expect(s('$J(.5,6,2)')).toBe('  0.50');
    expect(s('$FN(1234.5,",",2)')).toBe('1,234.50');
    expect(s('$FN(-3,"P")')).toBe('(3)');
    expect(s('$NUMBER("12.50")')).toBe('12.5');
    expect(s('$NUMBER("12abc")')).toBe('');
    expect(s('$NORMALIZE(2.345,1)')).toBe('2.3');
    expect(s('$ZABS(-4)')).toBe('4');
  });

  it('$ISOBJECT, $ASCII, $CHAR, $MATCH', () => {
    expect(s('$ISOBJECT(aux)')).toBe('1');
    expect(s('$ISOBJECT("x")')).toBe('0');
    expect(s('$A("A")')).toBe('65');
    expect(s('$A("")')).toBe('-1');
    expect(s('$C(72,105)')).toBe('Hi');
    expect(s('$MATCH("abc","[a-c]+")')).toBe('1');
  });

  it('dates and times: $ZDATE, $ZDATEH, $ZTIME, $ZTIMEH, $ZDATETIME, $ZDATETIMEH, $H, $ZTS', () => {
    expect(s('$ZDATEH("2024-03-05",3)')).toBe('66904');
    expect(s('$ZD(66904,3)')).toBe('2024-03-05');
    expect(s('$ZD(66904)')).toBe('03/05/2024');
    expect(s('$ZD(66904,8)')).toBe('20240305');
    expect(s('$ZDH("20240305",8)')).toBe('66904');
    expect(s('$ZD(47117,3)')).toBe('1970-01-01');
    expect(() => s('$ZDH("2024-13-05",3)')).toThrow(/<ILLEGAL VALUE>/);
    expect(s('$ZT(52207)')).toBe('14:30:07');
    expect(s('$ZTH("14:30:07")')).toBe('52207');
    expect(s('$ZTH("2:30 PM")')).toBe('52200');
    expect(s('$ZDT("66904,52207",3)')).toBe('2024-03-05 14:30:07');
    expect(s('$ZDTH("2024-03-05 14:30:07",3)')).toBe('66904,52207');
    expect(s('$H')).toBe('66904,52207');
    expect(s('$ZTS')).toMatch(/^\d+,\d+(\.\d+)?$/);
  });
});
