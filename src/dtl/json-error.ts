/**
 * Where a JSON text goes wrong. V8's JSON.parse messages carry an offset for some errors only, so
 * a small scanner walks the grammar and returns the offset of the first character that cannot be
 * part of a valid document (the text length when it ends too early).
 */

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001F]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Scanner {
  i = 0;
  constructor(private readonly text: string) {}

  ws(): void {
    WS.lastIndex = this.i;
    WS.exec(this.text);
    this.i = WS.lastIndex;
  }

  token(re: RegExp): boolean {
    re.lastIndex = this.i;
    if (!re.exec(this.text)) return false;
    this.i = re.lastIndex;
    return true;
  }

  /** Reads one value; false at the first error (this.i is then where it is). */
  value(): boolean {
    this.ws();
    const c = this.text[this.i];
    if (c === '{') return this.members();
    if (c === '[') return this.elements();
    if (c === '"') return this.token(STRING) || this.badString();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return true;
      }
    }
    return this.token(NUMBER);
  }

  /** Inside an unterminated or malformed string: the offending character. */
  badString(): boolean {
    let k = this.i + 1;
    while (k < this.text.length && this.text[k] !== '"' && this.text.charCodeAt(k) >= 0x20) k += this.text[k] === '\\' ? 2 : 1;
    this.i = k;
    return false;
  }

  members(): boolean {
    this.i++;
    this.ws();
    if (this.text[this.i] === '}') return (this.i++, true);
    for (;;) {
      this.ws();
      if (!this.token(STRING)) return false;
      this.ws();
      if (this.text[this.i] !== ':') return false;
      this.i++;
      if (!this.value()) return false;
      this.ws();
      if (this.text[this.i] === '}') return (this.i++, true);
      if (this.text[this.i] !== ',') return false;
      this.i++;
    }
  }

  elements(): boolean {
    this.i++;
    this.ws();
    if (this.text[this.i] === ']') return (this.i++, true);
    for (;;) {
      if (!this.value()) return false;
      this.ws();
      if (this.text[this.i] === ']') return (this.i++, true);
      if (this.text[this.i] !== ',') return false;
      this.i++;
    }
  }
}

/** Offset of the first error in `text`, or -1 when it is valid JSON. */
export function jsonErrorOffset(text: string): number {
  const scanner = new Scanner(text);
  if (!scanner.value()) return Math.min(scanner.i, text.length);
  scanner.ws();
  return scanner.i === text.length ? -1 : scanner.i;
}
