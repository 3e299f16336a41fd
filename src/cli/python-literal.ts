/**
 * Reads a module-level assignment from Python source without running it: a small tokenizer (strings of
 * every quoting, comments, bracket depth, logical lines) and a parser for the literals `ast.literal_eval`
 * accepts (strings, numbers, True/False/None, dicts, lists, tuples, sets). A settings file whose imports
 * fail on this machine still yields its REMOTE_SETTINGS; a value that is not a literal is reported, not run.
 */

type Token =
  | { kind: 'name'; text: string; line: number; column: number }
  | { kind: 'string'; value: string; line: number; column: number; formatted: boolean }
  | { kind: 'number'; value: number; line: number; column: number }
  | { kind: 'op'; text: string; line: number; column: number }
  | { kind: 'newline'; line: number; column: number };

export type PythonValue = string | number | boolean | null | PythonValue[] | { [key: string]: PythonValue };

export type AssignmentLookup =
  { found: false } | { found: true; literal: true; value: PythonValue; line: number } | { found: true; literal: false; line: number; reason: string };

export class PythonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const stringStart = /^([rRbBuUfF]{0,2})('''|"""|'|")/;
const numberPattern = /^(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)[jJ]?/;
const namePattern = /^[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF]*/;
const operators = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '==',
  '!=',
  '<=',
  '>=',
  '**',
  '//',
  '<<',
  '>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
];
const simpleEscapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '\n': '',
};

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  const column = (): number => position - lineStart;
  while (position < source.length) {
    const char = source[position]!;
    if (char === '\n') {
      if (depth === 0) tokens.push({ kind: 'newline', line, column: column() });
      position++;
      line++;
      lineStart = position;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r' || char === '\f') {
      position++;
      continue;
    }
    if (char === '#') {
      while (position < source.length && source[position] !== '\n') position++;
      continue;
    }
    if (char === '\\' && source[position + 1] === '\n') {
      position += 2;
      line++;
      lineStart = position;
      continue;
    }
    const rest = source.slice(position, position + 8);
    const quote = stringStart.exec(rest);
    if (quote) {
      const startLine = line;
      const startColumn = column();
      const prefix = quote[1]!.toLowerCase();
      const delimiter = quote[2]!;
      position += quote[0].length;
      const raw = prefix.includes('r');
      let value = '';
      for (;;) {
        if (position >= source.length) throw new PythonSyntaxError('unterminated string', startLine);
        if (source.startsWith(delimiter, position)) {
          position += delimiter.length;
          break;
        }
        const next = source[position]!;
        if (next === '\n') {
          if (delimiter.length === 1) throw new PythonSyntaxError('unterminated string', startLine);
          line++;
          lineStart = position + 1;
        }
        if (next === '\\' && position + 1 < source.length) {
          const escaped = source[position + 1]!;
          if (escaped === '\n') {
            line++;
            lineStart = position + 2;
          }
          if (raw) {
            value += next + escaped;
            position += 2;
            continue;
          }
          const decoded = decodeEscape(source, position);
          value += decoded.text;
          position = decoded.end;
          continue;
        }
        value += next;
        position++;
      }
      tokens.push({ kind: 'string', value, line: startLine, column: startColumn, formatted: prefix.includes('f') });
      continue;
    }
    const number = /[\d.]/.test(char) ? numberPattern.exec(source.slice(position, position + 64)) : null;
    if (number && number[0] !== '.') {
      const text = number[0].replace(/_/g, '');
      if (/[jJ]$/.test(text)) throw new PythonSyntaxError('complex numbers are not supported', line);
      const value = /^0[oO]/.test(text) ? parseInt(text.slice(2), 8) : /^0[bB]/.test(text) ? parseInt(text.slice(2), 2) : Number(text);
      tokens.push({ kind: 'number', value, line, column: column() });
      position += number[0].length;
      continue;
    }
    const name = namePattern.exec(source.slice(position, position + 256));
    if (name) {
      tokens.push({ kind: 'name', text: name[0], line, column: column() });
      position += name[0].length;
      continue;
    }
    const op = operators.find((candidate) => source.startsWith(candidate, position)) ?? char;
    if ('([{'.includes(op)) depth++;
    if (')]}'.includes(op)) depth = Math.max(0, depth - 1);
    tokens.push({ kind: 'op', text: op, line, column: column() });
    position += op.length;
  }
  tokens.push({ kind: 'newline', line, column: column() });
  return tokens;
}

function decodeEscape(source: string, position: number): { text: string; end: number } {
  const escaped = source[position + 1]!;
  if (escaped in simpleEscapes) return { text: simpleEscapes[escaped]!, end: position + 2 };
  const widths: Record<string, number> = { x: 2, u: 4, U: 8 };
  const width = widths[escaped];
  if (width !== undefined) {
    const hex = source.slice(position + 2, position + 2 + width);
    if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === width) return { text: String.fromCodePoint(parseInt(hex, 16)), end: position + 2 + width };
  }
  if (/[0-7]/.test(escaped)) {
    const octal = /^[0-7]{1,3}/.exec(source.slice(position + 1, position + 4))![0];
    return { text: String.fromCharCode(parseInt(octal, 8)), end: position + 1 + octal.length };
  }
  // Python keeps unknown escapes as written.
  return { text: `\\${escaped}`, end: position + 2 };
}

/** The value of the last module-level `name = <literal>` (or `name: T = <literal>`) in the source. */
export function findAssignment(source: string, name: string): AssignmentLookup {
  const tokens = tokenize(source);
  let result: AssignmentLookup = { found: false };
  let atLineStart = true;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.kind === 'newline' || (token.kind === 'op' && token.text === ';')) {
      atLineStart = true;
      continue;
    }
    const starts = atLineStart && token.kind === 'name' && token.text === name && (token.column === 0 || isAfterSemicolon(tokens, index));
    atLineStart = false;
    if (!starts) continue;
    let cursor = index + 1;
    const next = tokens[cursor];
    if (next?.kind === 'op' && next.text === ':') {
      while (
        cursor < tokens.length &&
        !(tokens[cursor]!.kind === 'op' && (tokens[cursor] as { text: string }).text === '=') &&
        tokens[cursor]!.kind !== 'newline'
      )
        cursor++;
    }
    const equals = tokens[cursor];
    if (equals?.kind !== 'op' || equals.text !== '=') continue;
    try {
      const parser = new LiteralParser(tokens, cursor + 1);
      const value = parser.expression();
      parser.expectEnd();
      result = { found: true, literal: true, value, line: token.line };
    } catch (error) {
      if (!(error instanceof PythonSyntaxError)) throw error;
      result = { found: true, literal: false, line: token.line, reason: error.message };
    }
  }
  return result;
}

function isAfterSemicolon(tokens: Token[], index: number): boolean {
  const previous = tokens[index - 1];
  return previous?.kind === 'op' && previous.text === ';';
}

class LiteralParser {
  constructor(
    private readonly tokens: Token[],
    private position: number,
  ) {}

  expression(): PythonValue {
    const token = this.take();
    if (token.kind === 'string') {
      if (token.formatted) throw new PythonSyntaxError('an f-string is not a literal', token.line);
      let value = token.value;
      // Adjacent string literals concatenate, as in Python.
      while (this.peek().kind === 'string') {
        const more = this.take() as Extract<Token, { kind: 'string' }>;
        if (more.formatted) throw new PythonSyntaxError('an f-string is not a literal', more.line);
        value += more.value;
      }
      return value;
    }
    if (token.kind === 'number') return token.value;
    if (token.kind === 'name') {
      if (token.text === 'True') return true;
      if (token.text === 'False') return false;
      if (token.text === 'None') return null;
      throw new PythonSyntaxError(`'${token.text}' is a name, not a literal`, token.line);
    }
    if (token.kind === 'op') {
      if (token.text === '-' || token.text === '+') {
        const operand = this.take();
        if (operand.kind !== 'number') throw new PythonSyntaxError(`'${token.text}' applies to numbers only`, token.line);
        return token.text === '-' ? -operand.value : operand.value;
      }
      if (token.text === '[') return this.sequence(']');
      if (token.text === '(') return this.sequence(')');
      if (token.text === '{') return this.braces();
    }
    throw new PythonSyntaxError(`unexpected ${describeToken(token)}`, token.line);
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind === 'newline' || (token.kind === 'op' && token.text === ';')) return;
    throw new PythonSyntaxError(`the value goes on with ${describeToken(token)}: only a plain literal can be read`, token.line);
  }

  private sequence(close: string): PythonValue[] {
    const items: PythonValue[] = [];
    while (!this.consume(close)) {
      items.push(this.expression());
      if (!this.consume(',')) {
        this.expect(close);
        break;
      }
    }
    return items;
  }

  /** `{}` is a dict; `{a, b}` a set (read as a list). */
  private braces(): PythonValue {
    if (this.consume('}')) return {};
    const first = this.expression();
    if (!this.consume(':')) {
      const items = [first];
      while (this.consume(',') && !this.peekOp('}')) items.push(this.expression());
      this.expect('}');
      return items;
    }
    const dict: { [key: string]: PythonValue } = {};
    let key = first;
    for (;;) {
      if (typeof key === 'object' && key !== null) throw new PythonSyntaxError('a dict key must be a string or a number', this.peek().line);
      dict[String(key)] = this.expression();
      if (!this.consume(',')) break;
      if (this.peekOp('}')) break;
      key = this.expression();
      this.expect(':');
    }
    this.expect('}');
    return dict;
  }

  private peek(): Token {
    return this.tokens[this.position] ?? { kind: 'newline', line: 0, column: 0 };
  }

  private peekOp(text: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.text === text;
  }

  private take(): Token {
    const token = this.peek();
    this.position++;
    return token;
  }

  private consume(text: string): boolean {
    if (!this.peekOp(text)) return false;
    this.position++;
    return true;
  }

  private expect(text: string): void {
    if (!this.consume(text)) throw new PythonSyntaxError(`expected '${text}' but found ${describeToken(this.peek())}`, this.peek().line);
  }
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case 'name':
      return `'${token.text}'`;
    case 'op':
      return `'${token.text}'`;
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    default:
      return 'the end of the line';
  }
}
