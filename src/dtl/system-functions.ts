/**
 * ObjectScript `$` functions and special variables of the DTL subset (dtl-reference §2.8).
 * `$GET`, `$DATA`, `$CASE` and `$SELECT` need unevaluated arguments and live in the compiler.
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import { horolog, zdate, zdateh, ztime, ztimeh, ztimestamp } from './datetime.ts';
import { Dec } from './decimal.ts';
import type { FunctionDef } from './functions.ts';
import { convertCase, extract, piece, translate, zstrip } from './text-functions.ts';
import { bool, isStructure, toNum, toStr } from './values.ts';

/** `*` or `*-n` as an argument of $EXTRACT: the position counted from the end. */
export class StarRef {
  constructor(readonly offset: number) {}
}

const str = (v: unknown, fallback = ''): string => (v === undefined ? fallback : toStr(v));
const int = (v: unknown, fallback: number): number => (v === undefined || v === '' ? fallback : toNum(v).trunc().toJs());
const position = (v: unknown, length: number, fallback: number): number => (v instanceof StarRef ? length + v.offset : int(v, fallback));

function illegal(fn: string, value: string): never {
  throw new ObjectScriptError('ILLEGAL VALUE', `${fn}(${JSON.stringify(value)})`);
}

function fnumber(v: unknown, format: string, decimals: number | null): string {
  const n = toNum(v);
  let text = decimals === null ? n.toString() : n.toFixed(decimals);
  if (decimals === null && text.startsWith('.')) text = `0${text}`;
  if (decimals === null && text.startsWith('-.')) text = `-0${text.slice(1)}`;
  const negative = text.startsWith('-');
  let body = negative ? text.slice(1) : text;
  if (format.includes(',')) {
    const [whole, frac] = body.split('.');
    body = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac === undefined ? '' : `.${frac}`);
  }
  if (negative) return format.includes('P') ? `(${body})` : format.includes('T') ? `${body}-` : `-${body}`;
  return format.includes('+') ? `+${body}` : body;
}

const defs: Record<string, FunctionDef> = {
  EXTRACT: {
    min: 1,
    max: 3,
    call: (_c, [v, f, t]) => {
      const text = str(v);
      const from = position(f, text.length, 1);
      return extract(text, from, t === undefined ? from : position(t, text.length, from));
    },
  },
  PIECE: {
    min: 2,
    max: 4,
    call: (_c, [v, d, f, t]) => {
      const from = int(f, 1);
      return piece(str(v), str(d), from, int(t, from));
    },
  },
  LENGTH: {
    min: 1,
    max: 2,
    call: (_c, [v, d]) => (d === undefined ? Dec.fromInt([...str(v)].length) : Dec.fromInt(str(d) === '' ? 0 : str(v).split(str(d)).length)),
  },
  FIND: {
    min: 2,
    max: 3,
    call: (_c, [v, s, start]) => {
      const text = str(v);
      const sub = str(s);
      const from = Math.max(int(start, 1), 1) - 1;
      const at = text.indexOf(sub, from);
      return Dec.fromInt(at < 0 ? 0 : at + sub.length + 1);
    },
  },
  TRANSLATE: { min: 2, max: 3, call: (_c, [v, f, t]) => translate(str(v), str(f), str(t)) },
  REPLACE: { min: 3, max: 3, call: (_c, [v, f, r]) => (str(f) === '' ? str(v) : str(v).split(str(f)).join(str(r))) },
  ZCONVERT: {
    min: 2,
    max: 3,
    call: (_c, [v, mode]) => convertCase(str(v), str(mode)) ?? illegal('$ZCONVERT', str(mode)),
  },
  ZSTRIP: { min: 2, max: 4, call: (_c, [v, a, r, k]) => zstrip(str(v), str(a), str(r), str(k)) },
  JUSTIFY: {
    min: 2,
    max: 3,
    call: (_c, [v, w, d]) => {
      const text = d === undefined ? str(v) : fnumber(v, '', int(d, 0));
      return text.padStart(int(w, 0), ' ');
    },
  },
  FNUMBER: { min: 2, max: 3, call: (_c, [v, f, d]) => fnumber(v, str(f).toUpperCase(), d === undefined ? null : int(d, 0)) },
  NUMBER: { min: 1, max: 4, call: (_c, [v]) => (/^[+-]?(\d+\.?\d*|\.\d+)(E[+-]?\d+)?$/i.test(str(v).trim()) ? toNum(str(v).trim()) : '') },
  NORMALIZE: { min: 2, max: 2, call: (_c, [v, s]) => toNum(v).round(int(s, 0)) },
  ISOBJECT: { min: 1, max: 1, call: (_c, [v]) => bool(isStructure(v)) },
  ASCII: {
    min: 1,
    max: 2,
    call: (_c, [v, p]) => {
      const code = [...str(v)][int(p, 1) - 1]?.codePointAt(0);
      return Dec.fromInt(code ?? -1);
    },
  },
  CHAR: {
    min: 1,
    max: 32,
    call: (_c, args) => args.map((a) => (a === undefined || toNum(a).sign() < 0 ? '' : String.fromCodePoint(toNum(a).toJs()))).join(''),
  },
  REVERSE: { min: 1, max: 1, call: (_c, [v]) => [...str(v)].reverse().join('') },
  ZABS: { min: 1, max: 1, call: (_c, [v]) => (toNum(v).sign() < 0 ? toNum(v).neg() : toNum(v)) },
  MATCH: {
    min: 2,
    max: 2,
    call: (_c, [v, re]) => {
      try {
        return bool(new RegExp(`^(?:${str(re)})$`, 'u').test(str(v)));
      } catch {
        throw new ObjectScriptError('REGULAR EXPRESSION', `bad regular expression "${str(re)}"`);
      }
    },
  },
  ZDATE: { min: 1, max: 9, call: (_c, [h, f]) => zdate(toNum(str(h).split(',')[0]).trunc().toJs(), int(f, 1)) },
  ZDATEH: {
    min: 1,
    max: 9,
    call: (_c, [v, f]) => {
      const day = zdateh(str(v), int(f, 1));
      return day === null ? illegal('$ZDATEH', str(v)) : Dec.fromInt(day);
    },
  },
  ZTIME: { min: 1, max: 4, call: (_c, [s, f]) => ztime(toNum(s).toJs(), int(f, 1)) },
  ZTIMEH: {
    min: 1,
    max: 3,
    call: (_c, [v]) => {
      const seconds = ztimeh(str(v));
      return seconds === null ? illegal('$ZTIMEH', str(v)) : Dec.fromInt(seconds);
    },
  },
  ZDATETIME: {
    min: 1,
    max: 9,
    call: (_c, [h, df, tf]) => {
      const [day, seconds] = str(h).split(',');
      return `${zdate(toNum(day).trunc().toJs(), int(df, 1))} ${ztime(toNum(seconds ?? '0').toJs(), int(tf, 1))}`;
    },
  },
  ZDATETIMEH: {
    min: 1,
    max: 9,
    call: (_c, [v, df]) => {
      const [datePart, timePart] = str(v).split(/[ T]/);
      const day = zdateh(datePart ?? '', int(df, 1));
      const seconds = timePart === undefined ? 0 : ztimeh(timePart.replace(/\.\d+$/, ''));
      return day === null || seconds === null ? illegal('$ZDATETIMEH', str(v)) : `${day},${seconds}`;
    },
  },
};

const ALIASES: Record<string, string> = {
  E: 'EXTRACT',
  P: 'PIECE',
  L: 'LENGTH',
  F: 'FIND',
  TR: 'TRANSLATE',
  ZCVT: 'ZCONVERT',
  J: 'JUSTIFY',
  FN: 'FNUMBER',
  NUM: 'NUMBER',
  A: 'ASCII',
  C: 'CHAR',
  RE: 'REVERSE',
  ZD: 'ZDATE',
  ZDH: 'ZDATEH',
  ZT: 'ZTIME',
  ZTH: 'ZTIMEH',
  ZDT: 'ZDATETIME',
  ZDTH: 'ZDATETIMEH',
  G: 'GET',
  D: 'DATA',
  S: 'SELECT',
};

/** Canonical name of a $ function (`$E` → EXTRACT). */
export function systemFunctionName(name: string): string {
  const upper = name.toUpperCase();
  return ALIASES[upper] ?? upper;
}

export function systemFunction(name: string): FunctionDef | undefined {
  return defs[systemFunctionName(name)];
}

export const SPECIAL_VARIABLES: Record<string, (ctx: RunContext) => unknown> = {
  H: (ctx) => horolog(ctx.now()),
  HOROLOG: (ctx) => horolog(ctx.now()),
  ZTS: (ctx) => ztimestamp(ctx.now()),
  ZTIMESTAMP: (ctx) => ztimestamp(ctx.now()),
  ZSTORAGE: () => Dec.fromInt(2147483647),
  JOB: () => '1',
  ZVERSION: () => 'Conveyor DTL engine',
};
