/** String primitives shared by the function set (`..Piece`) and the `$` functions (`$PIECE`). */

/** `$PIECE(s, delim, from, to)`: pieces from..to (1-based) joined by the delimiter. */
export function piece(text: string, delim: string, from: number, to: number): string {
  if (delim === '') return '';
  const parts = text.split(delim);
  const start = Math.max(from, 1);
  if (to < start) return '';
  return parts.slice(start - 1, to).join(delim);
}

/** `$EXTRACT(s, from, to)`: characters from..to (1-based, inclusive). */
export function extract(text: string, from: number, to: number): string {
  const start = Math.max(Math.trunc(from), 1);
  const end = Math.min(Math.trunc(to), text.length);
  return end < start ? '' : text.slice(start - 1, end);
}

/** `$TRANSLATE`: the i-th char of `from` becomes the i-th char of `to`, or is deleted. */
export function translate(text: string, from: string, to: string): string {
  let out = '';
  for (const ch of text) {
    const at = from.indexOf(ch);
    if (at < 0) out += ch;
    else if (at < to.length) out += to[at];
  }
  return out;
}

function inClass(code: string, ch: string): boolean {
  switch (code) {
    case 'E':
      return true;
    case 'A':
      return /\p{L}/u.test(ch);
    case 'U':
      return /\p{Lu}/u.test(ch);
    case 'L':
      return /\p{Ll}/u.test(ch);
    case 'N':
      return ch >= '0' && ch <= '9';
    case 'P':
      return /[\p{P}\p{S} ]/u.test(ch);
    case 'W':
      return /\s/u.test(ch);
    case 'C':
      return /\p{Cc}/u.test(ch);
    default:
      return false;
  }
}

/**
 * `$ZSTRIP(s, action, remove, keep)`: `*` strips everywhere, `<` leading, `>` trailing, `=`
 * collapses runs to one character; classes A U L N P W C E plus the `remove` characters, never
 * the `keep` characters.
 */
export function zstrip(text: string, action: string, remove = '', keep = ''): string {
  let out = text;
  for (const group of action.toUpperCase().matchAll(/([*<>=]+)([AULNPWCE]*)/g)) {
    const ops = group[1]!;
    const classes = group[2]!;
    const strip = (ch: string): boolean => !keep.includes(ch) && (remove.includes(ch) || [...classes].some((c) => inClass(c, ch)));
    const chars = [...out];
    if (ops.includes('*')) {
      out = chars.filter((ch) => !strip(ch)).join('');
      continue;
    }
    let start = 0;
    let end = chars.length;
    if (ops.includes('<')) while (start < end && strip(chars[start]!)) start++;
    if (ops.includes('>')) while (end > start && strip(chars[end - 1]!)) end--;
    let kept = chars.slice(start, end);
    if (ops.includes('=')) kept = kept.filter((ch, i) => !(i > 0 && strip(ch) && kept[i - 1] === ch));
    out = kept.join('');
  }
  return out;
}

/** `$ZCONVERT` case modes: U upper, L lower, W first letter of each word upper, S sentence. */
export function convertCase(text: string, mode: string): string | null {
  switch (mode.toUpperCase()) {
    case 'U':
      return text.toUpperCase();
    case 'L':
      return text.toLowerCase();
    case 'W':
      return text.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_m, pre: string, ch: string) => pre + ch.toUpperCase());
    case 'S':
      return text.toLowerCase().replace(/(^\s*|[.!?]\s+)(\p{L})/gu, (_m, pre: string, ch: string) => pre + ch.toUpperCase());
    default:
      return null;
  }
}
