/**
 * Parser of the ObjectScript expression subset (dtl-reference §2.3). Operators have no precedence:
 * `a+b*c` is `(a+b)*c`; unary operators bind to the next operand only. IRIS rule conditions are
 * read with rule syntax (`ruleSyntax`: operator words, `!=`, `!`, and precedence levels).
 */
import { parseNumericPrefix } from './decimal.ts';
import { DtlSyntaxError, type Position, type TextPosition } from './diagnostics.ts';
import type { BinaryOp, ExprNode, PathStep, PatternAtom } from './expr-ast.ts';
import { parseVPath } from './vpath.ts';

/** Methods callable on documents and collections (`source.GetValueAt("x")`, `list.Count()`). */
export const KNOWN_METHODS = new Set([
  'GetValueAt',
  'SetValueAt',
  'Count',
  'GetAt',
  'SetAt',
  'Insert',
  'InsertAt',
  'RemoveAt',
  'Clear',
  'IsDefined',
  '%IsDefined',
  '%Get',
  '%Set',
  '%Size',
  '%Push',
  '%Remove',
  '%ToJSON',
]);

const BINARY_OPS: BinaryOp[] = [
  "']]",
  '**',
  ']]',
  '&&',
  '||',
  '<=',
  '>=',
  "'=",
  "'<",
  "'>",
  "'[",
  "']",
  '+',
  '-',
  '*',
  '/',
  '\\',
  '#',
  '_',
  '=',
  '<',
  '>',
  '[',
  ']',
  '&',
  '!',
];
/**
 * Function-set functions that IRIS rule conditions also write between their two operands
 * (`Document.Name Contains "x"`, `Document.Code In "A,B"`): rule syntax only (`ruleSyntax`).
 */
const RULE_WORD_OPERATORS = new Set([
  'Contains',
  'DoesNotContain',
  'StartsWith',
  'DoesNotStartWith',
  'In',
  'NotIn',
  'IntersectsList',
  'DoesNotIntersectList',
  'Like',
  'NotLike',
  'Matches',
  'DoesNotMatch',
  'InFile',
  'NotInFile',
]);
/**
 * Operator levels of rule syntax, loosest first (IRIS rule conditions such as `a=1&&b=2` mean
 * `(a=1)&&(b=2)`): or, and, comparisons (with the operator words and pattern matches), concatenation,
 * addition, multiplication, power. ObjectScript itself has no levels.
 */
const RULE_LEVELS: Readonly<Record<BinaryOp, number>> = {
  '||': 1,
  '!': 1,
  '&&': 2,
  '&': 2,
  '=': 3,
  "'=": 3,
  '<': 3,
  '>': 3,
  '<=': 3,
  '>=': 3,
  "'<": 3,
  "'>": 3,
  '[': 3,
  "'[": 3,
  ']': 3,
  "']": 3,
  ']]': 3,
  "']]": 3,
  _: 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '\\': 6,
  '#': 6,
  '**': 7,
};
const COMPARISON_LEVEL = 3;

type Operator =
  { kind: 'binary'; op: BinaryOp; length: number } | { kind: 'word'; word: string; length: number } | { kind: 'pattern'; negated: boolean; length: number };

function ruleLevel(op: Operator): number {
  return op.kind === 'binary' ? RULE_LEVELS[op.op] : COMPARISON_LEVEL;
}

const IDENT = /[%A-Za-z][A-Za-z0-9]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const CLASS_NAME = /[%A-Za-z][%A-Za-z0-9.]*/y;
const PATTERN_COUNT = /(\d*)(\.?)(\d*)/y;

export class ExprParser {
  private i = 0;
  private readonly lineStarts: number[] = [0];
  /** `$$$` macros are accepted inside <code> only. */
  allowMacros = false;
  /**
   * IRIS rule conditions: `!=` is "not equal", a leading `!` is "not", the operator words of
   * RULE_WORD_OPERATORS stand between their operands, and operators bind by RULE_LEVELS.
   */
  ruleSyntax = false;

  constructor(
    private readonly text: string,
    private readonly base: TextPosition,
  ) {
    for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) this.lineStarts.push(k + 1);
  }

  get offset(): number {
    return this.i;
  }

  set offset(value: number) {
    this.i = value;
  }

  pos(offset = this.i): Position {
    const mapped = this.base.map?.[offset];
    if (mapped) return { line: mapped.line, column: mapped.column };
    let line = 0;
    while (line + 1 < this.lineStarts.length && this.lineStarts[line + 1]! <= offset) line++;
    const column = offset - this.lineStarts[line]!;
    return line === 0 ? { line: this.base.line, column: this.base.column + column } : { line: this.base.line + line, column: column + 1 };
  }

  fail(message: string, offset = this.i): never {
    throw new DtlSyntaxError(message, this.pos(offset));
  }

  peek(s: string): boolean {
    return this.text.startsWith(s, this.i);
  }

  eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.i += s.length;
    return true;
  }

  expect(s: string, what: string): void {
    if (!this.eat(s)) this.fail(`expected "${s}" ${what}${this.atEnd() ? ' but the expression ended' : `, found "${this.text[this.i]}"`}`);
  }

  skipSpaces(): void {
    while (this.text[this.i] === ' ' || this.text[this.i] === '\t') this.i++;
  }

  atEnd(): boolean {
    return this.i >= this.text.length;
  }

  /** A whole attribute expression: nothing may follow it. */
  parseComplete(): ExprNode {
    this.skipSpaces();
    if (this.atEnd()) this.fail('the expression is empty');
    const node = this.parseExpr();
    this.skipSpaces();
    if (!this.atEnd()) this.fail(`unexpected "${this.text.slice(this.i, this.i + 10)}" after the expression`);
    return node;
  }

  parseExpr(): ExprNode {
    return this.parseBinary(0);
  }

  /**
   * Operands joined by operators of level `minLevel` or more. ObjectScript has one level (strictly
   * left to right); rule syntax has RULE_LEVELS, each level left to right.
   */
  private parseBinary(minLevel: number): ExprNode {
    let left = this.parseUnary();
    for (;;) {
      const save = this.i;
      this.skipSpaces();
      const opStart = this.i;
      const op = this.nextOperator(opStart > save);
      const level = op === null ? -1 : this.ruleSyntax ? ruleLevel(op) : 0;
      if (op === null || level < minLevel) {
        this.i = save;
        return left;
      }
      this.i += op.length;
      this.skipSpaces();
      if (op.kind === 'pattern') {
        const pattern = this.eat('@') ? this.parseUnary() : this.parsePattern();
        left = { kind: 'pattern', negated: op.negated, subject: left, pattern, pos: this.pos(opStart) };
        continue;
      }
      const right = this.ruleSyntax ? this.parseBinary(level + 1) : this.parseUnary();
      left =
        op.kind === 'word'
          ? { kind: 'function', name: op.word, args: [left, right], pos: this.pos(opStart) }
          : { kind: 'binary', op: op.op, left, right, pos: this.pos(opStart) };
    }
  }

  /** The operator at the cursor, not consumed; null when none follows (the expression ends there). */
  private nextOperator(afterSpace: boolean): Operator | null {
    if (this.peek("'?")) return { kind: 'pattern', negated: true, length: 2 };
    if (this.peek('?')) return { kind: 'pattern', negated: false, length: 1 };
    if (this.ruleSyntax) {
      const word = this.ruleWordOperator(afterSpace);
      if (word !== null) return { kind: 'word', word, length: word.length };
      if (this.peek('!=')) return { kind: 'binary', op: "'=", length: 2 };
    }
    // `//` and `/*` start comments (in <code>), not a division.
    if (this.peek('//') || this.peek('/*')) return null;
    const op = BINARY_OPS.find((candidate) => this.peek(candidate));
    return op === undefined ? null : { kind: 'binary', op, length: op.length };
  }

  /** The operator word at the cursor (after white space, before an operand), or null. */
  private ruleWordOperator(afterSpace: boolean): string | null {
    if (!afterSpace) return null;
    IDENT.lastIndex = this.i;
    const word = IDENT.exec(this.text)?.[0];
    if (word === undefined || !RULE_WORD_OPERATORS.has(word)) return null;
    const next = this.text[this.i + word.length];
    return next === ' ' || next === '\t' || next === '(' || next === '"' ? word : null;
  }

  parseUnary(): ExprNode {
    const start = this.i;
    if (this.ruleSyntax && this.eat('!')) return { kind: 'unary', op: "'", operand: this.parseUnary(), pos: this.pos(start) };
    for (const op of ['-', '+', "'"] as const) {
      if (this.eat(op)) return { kind: 'unary', op, operand: this.parseUnary(), pos: this.pos(start) };
    }
    return this.parsePrimary();
  }

  parsePrimary(): ExprNode {
    const start = this.i;
    const c = this.text[this.i];
    if (c === undefined) this.fail('the expression ends where an operand was expected');
    if (c === '"') return { kind: 'string', value: this.parseString(), pos: this.pos(start) };
    NUMBER.lastIndex = this.i;
    const number = /[\d.]/.test(c) && !this.peek('..') ? NUMBER.exec(this.text) : null;
    if (number) {
      this.i += number[0].length;
      return { kind: 'number', value: parseNumericPrefix(number[0]), pos: this.pos(start) };
    }
    if (c === '(') {
      this.i++;
      this.skipSpaces();
      const inner = this.parseExpr();
      this.skipSpaces();
      this.expect(')', 'to close "("');
      return inner;
    }
    if (this.eat('..')) {
      const name = this.ident('a function name after ".."');
      if (!this.peek('(')) this.fail(`..${name} must be called with parentheses: ..${name}()`);
      return { kind: 'function', name, args: this.parseArgs(), pos: this.pos(start) };
    }
    if (this.eat('##class(')) {
      CLASS_NAME.lastIndex = this.i;
      const cls = CLASS_NAME.exec(this.text);
      if (!cls) this.fail('expected a class name in ##class( )');
      this.i += cls[0].length;
      this.expect(')', 'after the class name');
      this.expect('.', 'after ##class(…)');
      const method = this.ident('a method name');
      return { kind: 'classMethod', className: cls[0], method, args: this.peek('(') ? this.parseArgs() : [], pos: this.pos(start) };
    }
    if (c === '$') return this.parseDollar();
    // `*` / `*-n` as a position argument of $EXTRACT; the compiler rejects it anywhere else.
    if (c === '*') {
      this.i++;
      return { kind: 'special', name: '*', pos: this.pos(start) };
    }
    if (/[%A-Za-z]/.test(c)) return this.parseReference();
    return this.fail(`unexpected "${c}" where an operand was expected`);
  }

  parseString(): string {
    let out = '';
    this.i++;
    for (;;) {
      const close = this.text.indexOf('"', this.i);
      if (close < 0) this.fail('unterminated string literal');
      out += this.text.slice(this.i, close);
      this.i = close + 1;
      if (this.text[this.i] !== '"') return out;
      out += '"';
      this.i++;
    }
  }

  ident(what: string): string {
    IDENT.lastIndex = this.i;
    const m = IDENT.exec(this.text);
    if (!m) this.fail(`expected ${what}`);
    this.i += m[0].length;
    return m[0];
  }

  parseArgs(): (ExprNode | null)[] {
    this.expect('(', 'to start the arguments');
    const args: (ExprNode | null)[] = [];
    this.skipSpaces();
    if (this.eat(')')) return args;
    for (;;) {
      this.skipSpaces();
      if (this.peek(',') || this.peek(')')) args.push(null);
      else if (this.peek('.') && /[%A-Za-z]/.test(this.text[this.i + 1] ?? '')) {
        // `.name`: by-reference argument; we pass the variable's value.
        const at = this.i;
        this.i++;
        args.push({ kind: 'local', name: this.ident('a variable name'), pos: this.pos(at) });
      } else args.push(this.parseExpr());
      this.skipSpaces();
      if (this.eat(')')) return args;
      this.expect(',', 'between arguments');
    }
  }

  parseDollar(): ExprNode {
    const start = this.i;
    if (this.allowMacros && this.eat('$$$')) {
      const name = this.ident('a macro name after $$$');
      return { kind: 'system', name: `$$$${name}`, args: this.peek('(') ? this.parseArgs() : [], pos: this.pos(start) };
    }
    if (this.peek('$$')) this.fail(this.peek('$$$') ? '$$$ macros are only supported inside <code>' : '$$ calls are not supported in expressions');
    this.i++;
    const name = this.ident('a $ function or variable name').toUpperCase();
    if (name === 'SYSTEM' && this.eat('.')) {
      CLASS_NAME.lastIndex = this.i;
      const rest = CLASS_NAME.exec(this.text);
      if (!rest || !rest[0].includes('.')) this.fail('expected $SYSTEM.Class.Method(…)');
      this.i += rest[0].length;
      const dot = rest[0].lastIndexOf('.');
      return {
        kind: 'classMethod',
        className: `%SYSTEM.${rest[0].slice(0, dot)}`,
        method: rest[0].slice(dot + 1),
        args: this.peek('(') ? this.parseArgs() : [],
        pos: this.pos(start),
      };
    }
    if (!this.peek('(')) return { kind: 'special', name, pos: this.pos(start) };
    if (name === 'CASE') return this.parseCase(start);
    if (name === 'SELECT' || name === 'S') return this.parseSelect(start);
    return { kind: 'system', name, args: this.parseArgs(), pos: this.pos(start) };
  }

  parseCase(start: number): ExprNode {
    this.expect('(', 'after $CASE');
    this.skipSpaces();
    const subject = this.parseExpr();
    const pairs: { when: ExprNode; then: ExprNode }[] = [];
    let otherwise: ExprNode | null = null;
    for (;;) {
      this.skipSpaces();
      if (this.eat(')')) break;
      this.expect(',', 'in $CASE');
      this.skipSpaces();
      if (this.eat(':')) {
        this.skipSpaces();
        otherwise = this.parseExpr();
        continue;
      }
      const when = this.parseExpr();
      this.skipSpaces();
      this.expect(':', 'between a $CASE value and its result');
      this.skipSpaces();
      pairs.push({ when, then: this.parseExpr() });
    }
    if (pairs.length === 0 && otherwise === null) this.fail('$CASE needs at least one value:result pair', start);
    return { kind: 'case', subject, pairs, otherwise, pos: this.pos(start) };
  }

  parseSelect(start: number): ExprNode {
    this.expect('(', 'after $SELECT');
    const pairs: { when: ExprNode; then: ExprNode }[] = [];
    for (;;) {
      this.skipSpaces();
      const when = this.parseExpr();
      this.skipSpaces();
      this.expect(':', 'between a $SELECT condition and its result');
      this.skipSpaces();
      pairs.push({ when, then: this.parseExpr() });
      this.skipSpaces();
      if (this.eat(')')) return { kind: 'select', pairs, pos: this.pos(start) };
      this.expect(',', 'between $SELECT pairs');
    }
  }

  /** `name`, `source.{a.b}`, `source.Prop.Sub`, `obj.List.(k)`, `source.Items()`, `x.Method(args)`. */
  parseReference(): ExprNode {
    const start = this.i;
    const root = this.ident('a name');
    const steps: PathStep[] = [];
    if (this.peek('(')) {
      // A local array `map(k)`, `counts("a",2)`: its subscripts index a JSON object held by the variable.
      if (isDocumentRoot(root)) this.fail(`${root} cannot be subscripted; use ${root}.{…} or ${root}.Prop`);
      for (const arg of this.parseArgs()) {
        if (arg === null) this.fail(`empty subscript in ${root}(…)`);
        steps.push({ kind: 'index', index: { k: 'expr', expr: arg }, pos: arg.pos });
      }
      return { kind: 'path', root, steps, pos: this.pos(start), subscripted: true };
    }
    while (this.peek('.') && !this.peek('..')) {
      const dot = this.i;
      this.i++;
      if (this.eat('{')) {
        const close = this.text.indexOf('}', this.i);
        if (close < 0) this.fail('unclosed "{" in a virtual-document path', dot);
        steps.push(...parseVPath(this.text.slice(this.i, close), this.pos(this.i)));
        this.i = close + 1;
      } else if (this.eat('(')) {
        this.skipSpaces();
        const expr = this.parseExpr();
        this.skipSpaces();
        this.expect(')', 'to close ".("');
        steps.push({ kind: 'index', index: { k: 'expr', expr }, pos: this.pos(dot) });
      } else {
        const memberStart = this.i;
        const name = this.ident('a property name after "."');
        if (this.peek('()') && !KNOWN_METHODS.has(name)) {
          this.i += 2;
          steps.push({ kind: 'member', name, pos: this.pos(memberStart) }, { kind: 'index', index: { k: 'all' }, pos: this.pos(memberStart) });
        } else if (this.peek('(')) {
          const target: ExprNode =
            steps.length === 0 && !isDocumentRoot(root)
              ? { kind: 'local', name: root, pos: this.pos(start) }
              : { kind: 'path', root, steps: [...steps], pos: this.pos(start) };
          const call: ExprNode = { kind: 'method', target, name, args: this.parseArgs(), pos: this.pos(memberStart) };
          if (this.peek('.') && !this.peek('..')) this.fail('chained calls after a method call are not supported');
          return call;
        } else steps.push({ kind: 'member', name, pos: this.pos(memberStart) });
      }
    }
    if (steps.length === 0 && !isDocumentRoot(root)) return { kind: 'local', name: root, pos: this.pos(start) };
    return { kind: 'path', root, steps, pos: this.pos(start) };
  }

  parsePattern(): PatternAtom[] {
    const atoms: PatternAtom[] = [];
    for (;;) {
      const start = this.i;
      PATTERN_COUNT.lastIndex = this.i;
      const count = PATTERN_COUNT.exec(this.text)!;
      if (count[0] === '') break;
      this.i += count[0].length;
      const min = count[1] === '' ? 0 : Number(count[1]);
      const max = count[2] === '' ? min : count[3] === '' ? Infinity : Number(count[3]);
      const c = this.text[this.i];
      if (c === '"') atoms.push({ kind: 'literal', min, max, text: this.parseString() });
      else if (c === '(') {
        this.i++;
        const options: PatternAtom[][] = [];
        for (;;) {
          options.push(this.parsePattern());
          if (this.eat(')')) break;
          this.expect(',', 'between pattern alternatives');
        }
        atoms.push({ kind: 'alternation', min, max, options });
      } else {
        const codes = /^[ACELNPUacelnpu]+/.exec(this.text.slice(this.i));
        if (!codes) this.fail('expected a pattern code (A C E L N P U), a "literal" or (alternatives) after the count', start);
        this.i += codes[0].length;
        atoms.push({ kind: 'codes', min, max, codes: codes[0].toUpperCase() });
      }
    }
    if (atoms.length === 0) this.fail('expected a pattern after "?"');
    return atoms;
  }
}

export function isDocumentRoot(name: string): boolean {
  return name === 'source' || name === 'target' || name === 'aux' || name === 'process' || name === 'context';
}

/** Parses a whole expression attribute; `options.ruleSyntax` for an IRIS rule condition (ExprParser.ruleSyntax). */
export function parseExpression(text: string, base: TextPosition, options: { ruleSyntax?: boolean } = {}): ExprNode {
  const parser = new ExprParser(text, base);
  parser.ruleSyntax = options.ruleSyntax === true;
  return parser.parseComplete();
}
