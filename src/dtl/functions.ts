/**
 * The function set of `Ens.Util.FunctionSet`, called as `..Name(args)` (dtl-reference §2.7).
 * Omitted arguments arrive as `undefined` and take the documented defaults; booleans are 1/0.
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import { formatDateTime, parseDateTime, partsFromDate } from './datetime.ts';
import { Dec } from './decimal.ts';
import { patternFromText } from './pattern.ts';
import { extract, piece, translate, zstrip } from './text-functions.ts';
import { bool, toNum, toStr, truthy } from './values.ts';

export interface FunctionDef {
  min: number;
  max: number;
  call(ctx: RunContext, args: unknown[]): unknown;
}

const str = (v: unknown, fallback = ''): string => (v === undefined ? fallback : toStr(v));
const int = (v: unknown, fallback: number): number => (v === undefined || v === '' ? fallback : toNum(v).trunc().toJs());

function items(list: string): string[] {
  const spec = list.lastIndexOf(',,');
  if (spec >= 0 && spec >= list.length - 4) {
    const body = list.slice(0, spec);
    const how = list.slice(spec + 2);
    if (how.length === 1) return body.split(how);
    if (how.length === 2) return splitWrapped(body, how[0]!, how[1]!);
  }
  return list.split(',');
}

/** `<a><b><c>` with prefix `<` and suffix `>` → [a, b, c]. */
function splitWrapped(text: string, prefix: string, suffix: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== prefix) return text.split(prefix + suffix);
    const end = text.indexOf(suffix, i + 1);
    if (end < 0) break;
    out.push(text.slice(i + 1, end));
    i = end + 1;
  }
  return out;
}

function listOf(text: string, sep: string): string[] {
  if (sep.length === 2) return splitWrapped(text, sep[1]!, sep[0]!);
  return sep === '' ? [text] : text.split(sep);
}

function like(text: string, pattern: string): boolean {
  let escape: string | null = null;
  let body = pattern;
  const marker = pattern.lastIndexOf('%%');
  if (marker >= 0 && marker === pattern.length - 3) {
    escape = pattern[pattern.length - 1]!;
    body = pattern.slice(0, marker);
  }
  let re = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (escape !== null && ch === escape && i + 1 < body.length) re += body[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (ch === '%') re += '[\\s\\S]*';
    else if (ch === '_') re += '[\\s\\S]';
    else re += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u').test(text);
}

/** ..Piece's from/to: a number, "*" (the last piece) or "*-n". */
function pieceIndex(v: unknown, count: number, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const text = toStr(v);
  const star = /^\*(?:-(\d+))?$/.exec(text);
  if (star) return count - Number(star[1] ?? 0);
  return toNum(v).trunc().toJs();
}

function lookup(ctx: RunContext, table: string, key: string): string | undefined {
  if (!ctx.host.lookup) throw new ObjectScriptError('FUNCTION', 'lookup tables are not available in this host');
  return ctx.host.lookup(table, key);
}

function minMax(args: unknown[], pick: (a: Dec, b: Dec) => boolean): Dec | string {
  let best: Dec | null = null;
  for (const a of args) {
    if (a === undefined || a === '') continue;
    const n = toNum(a);
    if (best === null || pick(n, best)) best = n;
  }
  return best ?? '';
}

const negate = (def: FunctionDef): FunctionDef => ({ ...def, call: (ctx, args) => bool(!truthy(def.call(ctx, args))) });

const contains: FunctionDef = { min: 2, max: 2, call: (_c, [v, s]) => bool(str(v).includes(str(s))) };
const startsWith: FunctionDef = { min: 2, max: 2, call: (_c, [v, s]) => bool(str(v).startsWith(str(s))) };
const inList: FunctionDef = { min: 2, max: 2, call: (_c, [v, list]) => bool(items(str(list)).includes(str(v))) };
const intersects: FunctionDef = {
  min: 2,
  max: 4,
  call: (_c, [v, list, srcSep, tgtSep]) => {
    const wanted = new Set(listOf(str(list), str(tgtSep, '><')));
    return bool(listOf(str(v), str(srcSep, '><')).some((x) => wanted.has(x)));
  },
};
const likeDef: FunctionDef = { min: 2, max: 2, call: (_c, [v, p]) => bool(like(str(v), str(p))) };
const matches: FunctionDef = { min: 2, max: 2, call: (_c, [v, p]) => bool(patternFromText(str(p)).test(str(v))) };
const exists: FunctionDef = { min: 2, max: 2, call: (ctx, [t, k]) => bool(lookup(ctx, str(t), str(k)) !== undefined) };

export const FUNCTION_SET: Record<string, FunctionDef> = {
  Contains: contains,
  DoesNotContain: negate(contains),
  StartsWith: startsWith,
  DoesNotStartWith: negate(startsWith),
  In: inList,
  NotIn: negate(inList),
  IntersectsList: intersects,
  DoesNotIntersectList: negate(intersects),
  Like: likeDef,
  NotLike: negate(likeDef),
  Matches: matches,
  DoesNotMatch: negate(matches),
  RegexMatch: {
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
  Exists: exists,
  Lookup: {
    min: 2,
    max: 4,
    call: (ctx, [t, k, d, onEmpty]) => {
      const table = str(t);
      const key = str(k);
      const fallback = str(d);
      const mode = int(onEmpty, 0);
      // defaultOnEmptyInput: 0 → "" for either; 1 → default only for an empty table name;
      // 2 → default only for an empty key; 3 → default for either.
      if (table === '') return mode === 1 || mode === 3 ? fallback : '';
      if (key === '') return mode === 2 || mode === 3 ? fallback : '';
      return lookup(ctx, table, key) ?? fallback;
    },
  },
  If: { min: 1, max: 3, call: (_c, [v, t, f]) => (truthy(v) ? (t ?? '') : (f ?? '')) },
  Not: { min: 1, max: 1, call: (_c, [v]) => bool(!truthy(v)) },
  Length: {
    min: 1,
    max: 2,
    call: (_c, [v, d]) => {
      const delim = str(d);
      return Dec.fromInt(delim === '' ? [...str(v)].length : str(v).split(delim).length);
    },
  },
  Max: { min: 1, max: 8, call: (_c, args) => minMax(args, (a, b) => a.cmp(b) > 0) },
  Min: { min: 1, max: 8, call: (_c, args) => minMax(args, (a, b) => a.cmp(b) < 0) },
  Pad: {
    min: 2,
    max: 3,
    call: (_c, [v, w, ch]) => {
      const text = str(v);
      const width = int(w, 0);
      const fill = str(ch, ' ') || ' ';
      const missing = Math.max(0, Math.abs(width) - text.length);
      const padding = fill.repeat(missing).slice(0, missing);
      return width >= 0 ? text + padding : padding + text;
    },
  },
  Piece: {
    min: 1,
    max: 4,
    call: (_c, [v, d, f, t]) => {
      const text = str(v);
      const delim = str(d, ',');
      const count = delim === '' ? 1 : text.split(delim).length;
      const from = pieceIndex(f, count, 1);
      return piece(text, delim, from, pieceIndex(t, count, from));
    },
  },
  ReplaceStr: { min: 3, max: 3, call: (_c, [v, f, r]) => (str(f) === '' ? str(v) : str(v).split(str(f)).join(str(r))) },
  Replace: { min: 3, max: 3, call: (_c, [v, f, r]) => (str(f) === '' ? str(v) : str(v).split(str(f)).join(str(r))) },
  Round: { min: 1, max: 2, call: (_c, [v, n]) => toNum(v).round(int(n, 0)) },
  Strip: { min: 2, max: 4, call: (_c, [v, act, rem, keep]) => zstrip(str(v), str(act), str(rem), str(keep)) },
  SubString: {
    min: 1,
    max: 3,
    call: (_c, [v, n, m]) => {
      const text = str(v);
      return extract(text, int(n, 1), m === undefined ? text.length : int(m, text.length));
    },
  },
  ToLower: { min: 1, max: 1, call: (_c, [v]) => str(v).toLowerCase() },
  ToUpper: { min: 1, max: 1, call: (_c, [v]) => str(v).toUpperCase() },
  Translate: { min: 3, max: 3, call: (_c, [v, i, o]) => translate(str(v), str(i), str(o)) },
  ConvertDateTime: {
    min: 1,
    max: 4,
    call: (_c, [v, inFmt, outFmt, file]) => {
      const value = str(v);
      const parts = parseDateTime(value, str(inFmt, '%Q') || '%Q');
      return parts ? formatDateTime(parts, str(outFmt, '%Q') || '%Q', str(file)) : value;
    },
  },
  CurrentDateTime: { min: 0, max: 1, call: (ctx, [fmt]) => formatDateTime(partsFromDate(ctx.now()), str(fmt, '%Q') || '%Q') },
};

/** Documented functions that need facilities Conveyor does not offer; named in the error. */
export const UNSUPPORTED_FUNCTIONS: Record<string, string> = {
  InFile: 'file membership tests are not available',
  NotInFile: 'file membership tests are not available',
  InFileColumn: 'file membership tests are not available',
  NotInFileColumn: 'file membership tests are not available',
  Rule: 'business rules are not part of Conveyor',
  Schedule: 'schedule specifications are not available in DTL',
};
