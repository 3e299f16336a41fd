import { describe, expect, it } from 'vitest';
import { Dec, DivideByZero, parseNumericPrefix } from './decimal.ts';

const n = (text: string): Dec => parseNumericPrefix(text);

describe('Dec (ObjectScript decimal numbers)', () => {
  it('adds decimals exactly, unlike binary floating point', () => {
    expect(n('0.1').add(n('0.2')).toString()).toBe('.3');
    expect(n('1.1').mul(n('3')).toString()).toBe('3.3');
  });

  it('prints the canonical form', () => {
    expect(n('-0012.30').toString()).toBe('-12.3');
    expect(n('.5').toString()).toBe('.5');
    expect(n('-0.5').toString()).toBe('-.5');
    expect(n('1E3').toString()).toBe('1000');
    expect(n('-0').toString()).toBe('0');
    expect(n('1.50').toString()).toBe('1.5');
  });

  it('reads the longest numeric prefix of a string', () => {
    expect(n('5 apples').toString()).toBe('5');
    expect(n(' 3').toString()).toBe('0');
    expect(n('abc').toString()).toBe('0');
    expect(n('--5').toString()).toBe('5');
    expect(n('+-5').toString()).toBe('-5');
    expect(n('1e2x').toString()).toBe('100');
    expect(n('3.').toString()).toBe('3');
  });

  it('divides to 19 significant digits, rounding half away from zero', () => {
    expect(n('10').div(n('4')).toString()).toBe('2.5');
    expect(n('1').div(n('3')).toString()).toBe('.3333333333333333333');
    expect(n('2').div(n('3')).toString()).toBe('.6666666666666666667');
    expect(n('-2').div(n('3')).toString()).toBe('-.6666666666666666667');
  });

  it('integer division truncates toward zero and modulo takes the divisor sign', () => {
    expect(n('7').intDiv(n('2')).toString()).toBe('3');
    expect(n('-7').intDiv(n('2')).toString()).toBe('-3');
    expect(n('7').mod(n('3')).toString()).toBe('1');
    expect(n('-7').mod(n('3')).toString()).toBe('2');
    expect(n('7').mod(n('-3')).toString()).toBe('-2');
    expect(n('7.5').mod(n('2')).toString()).toBe('1.5');
  });

  it('raises DivideByZero for /, \\ and # by zero', () => {
    expect(() => n('1').div(Dec.ZERO)).toThrow(DivideByZero);
    expect(() => n('1').intDiv(Dec.ZERO)).toThrow(DivideByZero);
    expect(() => n('1').mod(Dec.ZERO)).toThrow(DivideByZero);
  });

  it('raises to integer powers exactly and to fractional powers approximately', () => {
    expect(n('2').pow(n('3')).toString()).toBe('8');
    expect(n('2').pow(n('-2')).toString()).toBe('.25');
    expect(n('1.1').pow(n('2')).toString()).toBe('1.21');
    expect(n('9').pow(n('.5')).toString()).toBe('3');
  });

  it('rounds, truncates, compares and formats fixed decimals', () => {
    expect(n('2.345').round(2).toString()).toBe('2.35');
    expect(n('-2.345').round(2).toString()).toBe('-2.35');
    expect(n('2.5').round(0).toString()).toBe('3');
    expect(n('-7.9').trunc().toString()).toBe('-7');
    expect(n('10').cmp(n('9'))).toBe(1);
    expect(n('.5').toFixed(2)).toBe('0.50');
    expect(n('-1234.5').toFixed(0)).toBe('-1235');
  });

  it('converts from and to JS numbers', () => {
    expect(Dec.fromJs(2.5).toString()).toBe('2.5');
    expect(Dec.fromJs(1e-7).toString()).toBe('.0000001');
    expect(n('-.5').toJs()).toBe(-0.5);
    expect(n('12345678901234567890123').toString()).toBe('12345678901234567890000');
  });
});
