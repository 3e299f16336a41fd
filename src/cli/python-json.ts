/**
 * JSON text re-printed the way IoP's cli prints a test reply, `json.dumps(json.loads(text), indent=4)`:
 * a number written with a fraction or an exponent is a Python float and keeps its float form (`1.0`
 * stays `1.0`, `1e5` becomes `100000.0`, `1e-5` `1e-05`, out of range `Infinity`); an integer keeps
 * every digit; object keys keep their order (JavaScript's JSON.parse would move integer-like keys
 * first and read 1.0 as 1). Strings are escaped as JSON.stringify does.
 */

type Node =
  | { kind: 'object'; entries: Map<string, Node> }
  | { kind: 'array'; items: Node[] }
  | { kind: 'number'; lexeme: string }
  | { kind: 'string'; value: string }
  | { kind: 'literal'; text: 'true' | 'false' | 'null' };

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const stringPattern = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const whitespace = /[ \t\n\r]*/y;

class Reader {
  position = 0;
  constructor(readonly text: string) {}

  skip(): void {
    whitespace.lastIndex = this.position;
    whitespace.exec(this.text);
    this.position = whitespace.lastIndex;
  }

  match(pattern: RegExp): string | null {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return null;
    this.position = pattern.lastIndex;
    return found[0];
  }

  value(): Node {
    this.skip();
    const char = this.text[this.position];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return { kind: 'string', value: this.string() };
    for (const text of ['true', 'false', 'null'] as const) {
      if (this.text.startsWith(text, this.position)) {
        this.position += text.length;
        return { kind: 'literal', text };
      }
    }
    const lexeme = this.match(numberPattern);
    if (lexeme === null) throw new SyntaxError(`not JSON at ${this.position}`);
    return { kind: 'number', lexeme };
  }

  string(): string {
    const literal = this.match(stringPattern);
    if (literal === null) throw new SyntaxError(`bad string at ${this.position}`);
    return JSON.parse(literal) as string;
  }

  expect(char: string): void {
    this.skip();
    if (this.text[this.position] !== char) throw new SyntaxError(`expected ${char} at ${this.position}`);
    this.position++;
  }

  /** True (and consumed) when the next character is `char`. */
  next(char: string): boolean {
    this.skip();
    if (this.text[this.position] !== char) return false;
    this.position++;
    return true;
  }

  object(): Node {
    this.expect('{');
    const entries = new Map<string, Node>();
    if (this.next('}')) return { kind: 'object', entries };
    do {
      this.skip();
      const key = this.string();
      this.expect(':');
      entries.set(key, this.value());
    } while (this.next(','));
    this.expect('}');
    return { kind: 'object', entries };
  }

  array(): Node {
    this.expect('[');
    const items: Node[] = [];
    if (this.next(']')) return { kind: 'array', items };
    do items.push(this.value());
    while (this.next(','));
    this.expect(']');
    return { kind: 'array', items };
  }
}

/** Python's `repr(float)`: the shortest digits, positional from 1e-4 up to 1e16, else with an exponent. */
export function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent >= 16 || exponent < -4) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.padEnd(exponent + 1, '0').slice(0, exponent + 1);
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

function numberText(lexeme: string): string {
  return /[.eE]/.test(lexeme) ? pythonFloat(Number(lexeme)) : BigInt(lexeme).toString();
}

function print(node: Node, indent: number, depth: number): string {
  const pad = (level: number) => `\n${' '.repeat(indent * level)}`;
  switch (node.kind) {
    case 'literal':
      return node.text;
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return numberText(node.lexeme);
    case 'array':
      if (node.items.length === 0) return '[]';
      return `[${node.items.map((item) => pad(depth + 1) + print(item, indent, depth + 1)).join(',')}${pad(depth)}]`;
    case 'object':
      if (node.entries.size === 0) return '{}';
      return `{${[...node.entries].map(([key, value]) => `${pad(depth + 1)}${JSON.stringify(key)}: ${print(value, indent, depth + 1)}`).join(',')}${pad(depth)}}`;
  }
}

/** `json.dumps(json.loads(text), indent=indent)`, or undefined when the text is not JSON. */
export function pythonJsonDumps(text: string, indent = 4): string | undefined {
  const reader = new Reader(text);
  try {
    const value = reader.value();
    reader.skip();
    if (reader.position !== text.length) return undefined;
    return print(value, indent, 0);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
