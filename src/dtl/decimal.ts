/**
 * ObjectScript numbers: decimal, not binary floating point. `0.1+0.2` is exactly `.3`. A value is
 * `mantissa × 10^exponent` with a bigint mantissa, normalised (no trailing zeros in the mantissa) and
 * rounded to 19 significant digits, half away from zero, like IRIS's 64-bit decimal numbers.
 */

const SIGNIFICANT_DIGITS = 19;
const TEN = 10n;

const POWERS = Array.from({ length: 64 }, (_, i) => TEN ** BigInt(i));
const LIMIT = POWERS[SIGNIFICANT_DIGITS]!;

function pow10(n: number): bigint {
  return n < POWERS.length ? POWERS[n]! : TEN ** BigInt(n);
}

function digitCount(m: bigint): number {
  return (m < 0n ? -m : m).toString().length;
}

/** Error raised for `/ 0`, `\ 0`, `# 0`: the caller turns it into an ObjectScript <DIVIDE>. */
export class DivideByZero extends Error {
  constructor() {
    super('<DIVIDE>');
  }
}

export class Dec {
  readonly m: bigint;
  readonly e: number;

  private constructor(m: bigint, e: number) {
    this.m = m;
    this.e = e;
  }

  static readonly ZERO = new Dec(0n, 0);
  static readonly ONE = new Dec(1n, 0);

  /** Builds a normalised, rounded value. */
  static of(mantissa: bigint, exponent: number): Dec {
    if (mantissa === 0n) return Dec.ZERO;
    let m = mantissa;
    let e = exponent;
    const extra = m < LIMIT && m > -LIMIT ? 0 : digitCount(m) - SIGNIFICANT_DIGITS;
    if (extra > 0) {
      const div = pow10(extra);
      const negative = m < 0n;
      const abs = negative ? -m : m;
      let q = abs / div;
      if ((abs % div) * 2n >= div) q += 1n;
      m = negative ? -q : q;
      e += extra;
    }
    while (m !== 0n && m % TEN === 0n) {
      m /= TEN;
      e += 1;
    }
    return m === 0n ? Dec.ZERO : new Dec(m, e);
  }

  static fromInt(n: number): Dec {
    return Dec.of(BigInt(n), 0);
  }

  /** A JS number as it reads in JSON: `2.5` → 2.5 (via its shortest decimal text, not its binary value). */
  static fromJs(n: number): Dec {
    if (!Number.isFinite(n)) return Dec.ZERO;
    if (Number.isSafeInteger(n)) return Dec.of(BigInt(n), 0);
    const text = String(n);
    const point = text.indexOf('.');
    // The common "123.45" form without a regex; exponent forms ("1e-7") take the general parser.
    if (point > 0 && !text.includes('e')) return Dec.of(BigInt(text.slice(0, point) + text.slice(point + 1)), point + 1 - text.length);
    return parseNumericPrefix(text);
  }

  isZero(): boolean {
    return this.m === 0n;
  }

  isInteger(): boolean {
    return this.e >= 0;
  }

  sign(): number {
    return this.m === 0n ? 0 : this.m < 0n ? -1 : 1;
  }

  neg(): Dec {
    return this.m === 0n ? this : new Dec(-this.m, this.e);
  }

  add(o: Dec): Dec {
    const e = Math.min(this.e, o.e);
    return Dec.of(this.m * pow10(this.e - e) + o.m * pow10(o.e - e), e);
  }

  sub(o: Dec): Dec {
    return this.add(o.neg());
  }

  mul(o: Dec): Dec {
    return Dec.of(this.m * o.m, this.e + o.e);
  }

  div(o: Dec): Dec {
    if (o.m === 0n) throw new DivideByZero();
    if (this.m === 0n) return Dec.ZERO;
    // Scale the dividend so the quotient carries two digits more than we keep, then round.
    const k = Math.max(0, digitCount(o.m) - digitCount(this.m) + SIGNIFICANT_DIGITS + 2);
    const num = this.m * pow10(k);
    const q = num / o.m;
    const r = num % o.m;
    if (r === 0n) return Dec.of(q, this.e - o.e - k);
    // A sticky digit keeps a non-zero remainder from looking like an exact half when rounding.
    const sign = num < 0n !== o.m < 0n ? -1n : 1n;
    return Dec.of(q * TEN + sign, this.e - o.e - k - 1);
  }

  /** `\`: quotient truncated toward zero. */
  intDiv(o: Dec): Dec {
    if (o.m === 0n) throw new DivideByZero();
    const e = Math.min(this.e, o.e);
    return Dec.of((this.m * pow10(this.e - e)) / (o.m * pow10(o.e - e)), 0);
  }

  /** `#`: the result takes the sign of the divisor (`-7#3` = 2, `7#-3` = -2). */
  mod(o: Dec): Dec {
    if (o.m === 0n) throw new DivideByZero();
    const e = Math.min(this.e, o.e);
    const x = this.m * pow10(this.e - e);
    const y = o.m * pow10(o.e - e);
    let r = x % y;
    if (r !== 0n && r < 0n !== y < 0n) r += y;
    return Dec.of(r, e);
  }

  pow(o: Dec): Dec {
    if (o.isInteger() && Math.abs(Number(o.m)) * 10 ** o.e <= 4096) {
      const n = Number(o.m) * 10 ** o.e;
      let result: Dec = Dec.ONE;
      let base = Dec.of(this.m, this.e);
      let k = Math.abs(n);
      while (k > 0) {
        if (k & 1) result = result.mul(base);
        base = base.mul(base);
        k >>= 1;
      }
      return n < 0 ? Dec.ONE.div(result) : result;
    }
    return Dec.fromJs(Math.pow(this.toJs(), o.toJs()));
  }

  cmp(o: Dec): number {
    return this.sub(o).sign();
  }

  /** Rounds to `places` decimals, half away from zero. */
  round(places: number): Dec {
    if (-this.e <= places) return this;
    const drop = -this.e - places;
    const div = pow10(drop);
    const negative = this.m < 0n;
    const abs = negative ? -this.m : this.m;
    let q = abs / div;
    if ((abs % div) * 2n >= div) q += 1n;
    return Dec.of(negative ? -q : q, -places);
  }

  /** Truncates toward zero to an integer. */
  trunc(): Dec {
    if (this.e >= 0) return this;
    return Dec.of(this.m / pow10(-this.e), 0);
  }

  /** Canonical ObjectScript form: `.5`, `-.5`, `2134`, `12.3`, no exponent. */
  toString(): string {
    if (this.m === 0n) return '0';
    const negative = this.m < 0n;
    const digits = (negative ? -this.m : this.m).toString();
    let text: string;
    if (this.e >= 0) text = digits + '0'.repeat(this.e);
    else {
      const point = digits.length + this.e;
      text = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `.${'0'.repeat(-point)}${digits}`;
    }
    return negative ? `-${text}` : text;
  }

  /** Fixed-decimal text with a leading zero, as $JUSTIFY/$FNUMBER print it (`0.50`). */
  toFixed(places: number): string {
    const r = this.round(places);
    const negative = r.m < 0n;
    const scaled = (negative ? -r.m : r.m) * pow10(r.e + places);
    const digits = scaled.toString().padStart(places + 1, '0');
    const text = places > 0 ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
    return negative && scaled !== 0n ? `-${text}` : text;
  }

  toJs(): number {
    if (this.m >= -9007199254740991n && this.m <= 9007199254740991n) {
      if (this.e === 0) return Number(this.m);
      // Both operands exact doubles: IEEE division rounds correctly, like parsing the decimal text.
      if (this.e < 0 && this.e >= -22) return Number(this.m) / 10 ** -this.e;
    }
    return Number(this.toString());
  }
}

const NUMERIC_PREFIX = /^([+-]*)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?/;

/**
 * ObjectScript string → number: the longest numeric prefix (signs, digits, fraction, exponent);
 * no prefix gives 0, leading blanks are not skipped (`" 3"` → 0, `"5 apples"` → 5).
 */
export function parseNumericPrefix(text: string): Dec {
  const match = NUMERIC_PREFIX.exec(text);
  if (!match) return Dec.ZERO;
  const signs = match[1]!;
  let negative = false;
  for (const c of signs) if (c === '-') negative = !negative;
  const body = match[2]!;
  const point = body.indexOf('.');
  const intPart = point < 0 ? body : body.slice(0, point);
  const fracPart = point < 0 ? '' : body.slice(point + 1);
  const exponent = match[3] === undefined ? 0 : Number(match[3]);
  if (!Number.isFinite(exponent) || Math.abs(exponent) > 1000) return Dec.ZERO;
  const m = BigInt((intPart + fracPart).replace(/^0+(?=\d)/, '') || '0');
  return Dec.of(negative ? -m : m, exponent - fracPart.length);
}
