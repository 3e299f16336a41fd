/**
 * The virtual-document path inside `{ … }`: `a.b`, `list(2)`, `list(k).Field`, `list()`,
 * `list("*")`, `list(-)`, `dict("key")`, `(2)(1)`. Names may contain `_` here (JSON keys), unlike
 * ObjectScript identifiers.
 */
import { DtlSyntaxError, shift, type Position } from './diagnostics.ts';
import type { IndexSpec, PathStep } from './expr-ast.ts';

const NAME = /[A-Za-z_%][A-Za-z0-9_]*/y;
const INDEX_NUMBER = /^-?\d+$/;
const VARIABLE = /^[A-Za-z%][A-Za-z0-9]*$/;

function parseIndex(content: string, at: Position): IndexSpec {
  const text = content.trim();
  if (text === '') return { k: 'all' };
  if (text === '*' || text === '"*"') return { k: 'count' };
  if (text === '-') return { k: 'last' };
  if (INDEX_NUMBER.test(text)) {
    const n = Number(text);
    if (n < 1) throw new DtlSyntaxError(`index ${text} is out of range: positions start at 1`, at);
    return { k: 'num', n };
  }
  if (VARIABLE.test(text)) return { k: 'var', name: text };
  if (/^"(?:[^"]|"")*"$/.test(text)) return { k: 'key', key: text.slice(1, -1).replace(/""/g, '"') };
  throw new DtlSyntaxError(`bad index "(${content})": expected (), a number, a variable, "*", - or a quoted key`, at);
}

/**
 * Parses the text between the braces. `base` is the position of the first character of `text`
 * in the document, so errors point into the attribute.
 */
export function parseVPath(text: string, base: Position): PathStep[] {
  const steps: PathStep[] = [];
  let i = 0;
  const at = (offset: number): Position => shift(base, text, offset);
  if (text.trim() === '') throw new DtlSyntaxError('empty path inside { }', base);
  for (;;) {
    const stepStart = i;
    NAME.lastIndex = i;
    const name = NAME.exec(text);
    if (name) {
      steps.push({ kind: 'member', name: name[0], pos: at(i) });
      i += name[0].length;
    }
    while (text[i] === '(') {
      const close = findClose(text, i);
      if (close < 0) throw new DtlSyntaxError('unclosed "(" in path', at(i));
      steps.push({ kind: 'index', index: parseIndex(text.slice(i + 1, close), at(i)), pos: at(i) });
      i = close + 1;
    }
    if (i === stepStart) throw new DtlSyntaxError(`unexpected "${text[i]}" in path "${text}"`, at(i));
    if (i >= text.length) return steps;
    if (text[i] === ':')
      throw new DtlSyntaxError(`unexpected ":" in path "${text}": HL7-style Segment:Field paths are not supported (documents are JSON)`, at(i));
    if (text[i] !== '.') throw new DtlSyntaxError(`unexpected "${text[i]}" in path "${text}"`, at(i));
    i += 1;
    if (i >= text.length) throw new DtlSyntaxError(`path "${text}" ends with "."`, at(i - 1));
  }
}

function findClose(text: string, open: number): number {
  let inString = false;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inString = !inString;
    else if (!inString && c === ')') return i;
  }
  return -1;
}
