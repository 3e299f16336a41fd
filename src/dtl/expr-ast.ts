/**
 * Syntax trees of the ObjectScript expression subset and of property paths. Every node keeps the
 * position of its first character in the document.
 */
import type { Dec } from './decimal.ts';
import type { Position } from './diagnostics.ts';

/** One index inside `( )` of a path step. */
export type IndexSpec =
  | { k: 'all' } // ()   every element
  | { k: 'num'; n: number } // (2)  1-based position
  | { k: 'var'; name: string } // (k)  a local variable's value
  | { k: 'count' } // ("*") number of elements
  | { k: 'last' } // (-)  the last element
  | { k: 'key'; key: string } // ("x") an object member
  | { k: 'expr'; expr: ExprNode }; // .(expr) object-collection syntax

export type PathStep = { kind: 'member'; name: string; pos: Position } | { kind: 'index'; index: IndexSpec; pos: Position };

export type BinaryOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '\\'
  | '#'
  | '**'
  | '_'
  | '='
  | "'="
  | '<'
  | '>'
  | '<='
  | '>='
  | "'<"
  | "'>"
  | '['
  | "'["
  | ']'
  | "']"
  | ']]'
  | "']]"
  | '&'
  | '&&'
  | '!'
  | '||';

export type PatternAtom =
  | { kind: 'codes'; min: number; max: number; codes: string }
  | { kind: 'literal'; min: number; max: number; text: string }
  | { kind: 'alternation'; min: number; max: number; options: PatternAtom[][] };

export type ExprNode =
  | { kind: 'string'; value: string; pos: Position }
  | { kind: 'number'; value: Dec; pos: Position }
  | { kind: 'local'; name: string; pos: Position }
  /** `root` is source, target, aux, a local name…; steps walk into it. */
  /** `subscripted`: a local array reference `name(sub, …)` (reading an absent node is <UNDEFINED>). */
  | { kind: 'path'; root: string; steps: PathStep[]; pos: Position; subscripted?: boolean }
  | { kind: 'method'; target: ExprNode; name: string; args: (ExprNode | null)[]; pos: Position }
  | { kind: 'unary'; op: '-' | '+' | "'"; operand: ExprNode; pos: Position }
  | { kind: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode; pos: Position }
  | { kind: 'pattern'; negated: boolean; subject: ExprNode; pattern: PatternAtom[] | ExprNode; pos: Position }
  | { kind: 'function'; name: string; args: (ExprNode | null)[]; pos: Position }
  | { kind: 'system'; name: string; args: (ExprNode | null)[]; pos: Position }
  | { kind: 'special'; name: string; pos: Position }
  | { kind: 'classMethod'; className: string; method: string; args: (ExprNode | null)[]; pos: Position }
  | { kind: 'case'; subject: ExprNode; pairs: { when: ExprNode; then: ExprNode }[]; otherwise: ExprNode | null; pos: Position }
  | { kind: 'select'; pairs: { when: ExprNode; then: ExprNode }[]; pos: Position };
