/**
 * The binary operators' semantics, shared by the compiled closures and the AST interpreter.
 * `&&` and `||` short-circuit, so their callers evaluate the right operand only when needed.
 */
import { ObjectScriptError } from './context.ts';
import { DivideByZero, type Dec } from './decimal.ts';
import type { Position } from './diagnostics.ts';
import type { BinaryOp } from './expr-ast.ts';
import { collate } from './collation.ts';
import { bool, toNum, toStr, truthy } from './values.ts';

type Operator = (a: unknown, b: unknown) => unknown;

function sortsAfter(a: string, b: string): boolean {
  return a !== b && collate([a, b])[0] === b;
}

const arithmetic =
  (f: (x: Dec, y: Dec) => Dec): Operator =>
  (a, b) =>
    f(toNum(a), toNum(b));
const compare =
  (test: (c: number) => boolean): Operator =>
  (a, b) =>
    bool(test(toNum(a).cmp(toNum(b))));

export const OPERATORS: Record<Exclude<BinaryOp, '&&' | '||'>, Operator> = {
  '+': arithmetic((x, y) => x.add(y)),
  '-': arithmetic((x, y) => x.sub(y)),
  '*': arithmetic((x, y) => x.mul(y)),
  '/': arithmetic((x, y) => x.div(y)),
  '\\': arithmetic((x, y) => x.intDiv(y)),
  '#': arithmetic((x, y) => x.mod(y)),
  '**': arithmetic((x, y) => x.pow(y)),
  _: (a, b) => toStr(a) + toStr(b),
  '=': (a, b) => bool(toStr(a) === toStr(b)),
  "'=": (a, b) => bool(toStr(a) !== toStr(b)),
  '<': compare((c) => c < 0),
  '>': compare((c) => c > 0),
  '<=': compare((c) => c <= 0),
  "'>": compare((c) => c <= 0),
  '>=': compare((c) => c >= 0),
  "'<": compare((c) => c >= 0),
  '[': (a, b) => bool(toStr(a).includes(toStr(b))),
  "'[": (a, b) => bool(!toStr(a).includes(toStr(b))),
  ']': (a, b) => bool(toStr(a) > toStr(b)),
  "']": (a, b) => bool(!(toStr(a) > toStr(b))),
  ']]': (a, b) => bool(sortsAfter(toStr(a), toStr(b))),
  "']]": (a, b) => bool(!sortsAfter(toStr(a), toStr(b))),
  '&': (a, b) => bool(truthy(a) && truthy(b)),
  '!': (a, b) => bool(truthy(a) || truthy(b)),
};

/** Applies a non-short-circuit operator; a division by zero becomes <DIVIDE> at `pos`. */
export function applyOperator(op: Exclude<BinaryOp, '&&' | '||'>, a: unknown, b: unknown, pos: Position): unknown {
  try {
    return OPERATORS[op](a, b);
  } catch (error) {
    if (error instanceof DivideByZero) throw new ObjectScriptError('DIVIDE', 'division by zero', pos);
    throw error;
  }
}
