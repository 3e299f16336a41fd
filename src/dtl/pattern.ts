/**
 * ObjectScript pattern match (`x?3N1"-"4N`): compiled once to an anchored regular expression.
 * Codes: A letters, U upper, L lower, N digits, P punctuation (incl. space), C control, E anything.
 */
import { DtlSyntaxError } from './diagnostics.ts';
import type { PatternAtom } from './expr-ast.ts';
import { ExprParser } from './expr-parser.ts';

const CLASSES: Record<string, string> = {
  A: 'A-Za-z\\u00AA\\u00B5\\u00BA\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F',
  U: 'A-Z\\u00C0-\\u00D6\\u00D8-\\u00DE',
  L: 'a-z\\u00DF-\\u00F6\\u00F8-\\u00FF',
  N: '0-9',
  P: ' -/:-@\\[-`{-~',
  C: '\\u0000-\\u001F\\u007F',
};

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function quantifier(min: number, max: number): string {
  if (max === Infinity) return min === 0 ? '*' : `{${min},}`;
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

function atomSource(atom: PatternAtom): string {
  const q = quantifier(atom.min, atom.max);
  if (atom.kind === 'literal') return `(?:${escapeRegex(atom.text)})${q}`;
  if (atom.kind === 'alternation') return `(?:${atom.options.map((o) => o.map(atomSource).join('')).join('|')})${q}`;
  if (atom.codes.includes('E')) return `[\\s\\S]${q}`;
  const set = [...new Set(atom.codes)].map((c) => CLASSES[c]).join('');
  return `[${set}]${q}`;
}

export function compilePattern(atoms: PatternAtom[]): RegExp {
  return new RegExp(`^(?:${atoms.map(atomSource).join('')})$`, 'u');
}

const cache = new Map<string, RegExp>();

/** A pattern given as text at run time (`x?@p`, `..Matches(x, p)`). */
export function patternFromText(text: string): RegExp {
  let re = cache.get(text);
  if (!re) {
    const parser = new ExprParser(text, { line: 1, column: 1 });
    const atoms = parser.parsePattern();
    if (!parser.atEnd()) throw new DtlSyntaxError(`bad pattern "${text}"`, { line: 1, column: parser.offset + 1 });
    re = compilePattern(atoms);
    if (cache.size > 500) cache.clear();
    cache.set(text, re);
  }
  return re;
}
