/**
 * Dates and times: `$HOROLOG` day numbers (day 1 = 1841-01-01) and the strftime-like format codes
 * of `Ens.Util.Time` used by `..ConvertDateTime` and `..CurrentDateTime` (dtl-reference §2.9).
 * Wall-clock fields are handled without time-zone conversion.
 */

export interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction of a second as written (digits after the point), '' if none. */
  fraction: string;
}

const HOROLOG_EPOCH_DAYS = 47117; // $H day number of 1970-01-01
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function partsFromDate(date: Date): DateTimeParts {
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    fraction: '',
  };
}

export function horologDay(parts: Pick<DateTimeParts, 'year' | 'month' | 'day'>): number {
  return Math.round(Date.UTC(parts.year, parts.month - 1, parts.day) / 86_400_000) + HOROLOG_EPOCH_DAYS;
}

export function dayToParts(day: number): DateTimeParts {
  const d = new Date((day - HOROLOG_EPOCH_DAYS) * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 0, minute: 0, second: 0, fraction: '' };
}

function weekday(p: DateTimeParts): number {
  return new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
}

function dayOfYear(p: DateTimeParts): number {
  return horologDay(p) - horologDay({ year: p.year, month: 1, day: 1 }) + 1;
}

function validDate(p: DateTimeParts): boolean {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return false;
  return dayToParts(horologDay(p)).day === p.day;
}

/** Formats with `%Y %y %m %d %H %I %M %S %p %j %a %A %b %B %Q %%`; `#` after `%` drops leading zeros. */
export function formatDateTime(p: DateTimeParts, format: string, file = ''): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%' || i + 1 >= format.length) {
      out += c;
      continue;
    }
    let code = format[++i]!;
    const trim = code === '#';
    if (trim) code = format[++i] ?? '';
    const num = (n: number, width = 2): string => (trim ? String(n) : pad(n, width));
    const hour12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
    switch (code) {
      case 'Y':
        out += pad(p.year, 4);
        break;
      case 'y':
        out += pad(p.year % 100);
        break;
      case 'm':
        out += num(p.month);
        break;
      case 'd':
        out += num(p.day);
        break;
      case 'H':
        out += num(p.hour);
        break;
      case 'I':
        out += num(hour12);
        break;
      case 'M':
        out += num(p.minute);
        break;
      case 'S':
        out += num(p.second) + (p.fraction ? `.${p.fraction}` : '');
        break;
      case 'p':
        out += p.hour < 12 ? 'AM' : 'PM';
        break;
      case 'P':
        out += p.hour < 12 ? 'am' : 'pm';
        break;
      case 'j':
        out += num(dayOfYear(p), 3);
        break;
      case 'a':
        out += DAYS[weekday(p)]!.slice(0, 3);
        break;
      case 'A':
        out += DAYS[weekday(p)]!;
        break;
      case 'b':
        out += MONTHS[p.month - 1]!.slice(0, 3);
        break;
      case 'B':
        out += MONTHS[p.month - 1]!;
        break;
      case 'Q':
        out += `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${p.fraction ? `.${p.fraction}` : ''}`;
        break;
      case 'f':
        out += file;
        break;
      case '%':
        out += '%';
        break;
      default:
        out += `%${trim ? '#' : ''}${code}`;
    }
  }
  return out;
}

/** Parses `text` with a format of the same codes; null when it does not match exactly. */
export function parseDateTime(text: string, format: string): DateTimeParts | null {
  const p: DateTimeParts = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: '' };
  let pm: boolean | null = null;
  let i = 0;
  const digits = (min: number, max: number): number | null => {
    const m = new RegExp(`^\\d{${min},${max}}`).exec(text.slice(i));
    if (!m) return null;
    i += m[0].length;
    return Number(m[0]);
  };
  const word = (names: string[], length: number | null): number | null => {
    for (let k = 0; k < names.length; k++) {
      const name = length === null ? names[k]! : names[k]!.slice(0, length);
      if (text.slice(i, i + name.length).toLowerCase() === name.toLowerCase()) {
        i += name.length;
        return k;
      }
    }
    return null;
  };
  for (let f = 0; f < format.length; f++) {
    const c = format[f]!;
    if (c !== '%' || f + 1 >= format.length) {
      if (text[i] !== c) return null;
      i++;
      continue;
    }
    let code = format[++f]!;
    const loose = code === '#';
    if (loose) code = format[++f] ?? '';
    const two = (): number | null => digits(loose ? 1 : 2, 2);
    let v: number | null = 0;
    switch (code) {
      case 'Y':
        v = digits(4, 4);
        if (v !== null) p.year = v;
        break;
      case 'y':
        v = digits(2, 2);
        if (v !== null) p.year = v < 50 ? 2000 + v : 1900 + v;
        break;
      case 'm':
        v = two();
        if (v !== null) p.month = v;
        break;
      case 'd':
        v = two();
        if (v !== null) p.day = v;
        break;
      case 'H':
      case 'I':
        v = two();
        if (v !== null) p.hour = v;
        break;
      case 'M':
        v = two();
        if (v !== null) p.minute = v;
        break;
      case 'S': {
        v = two();
        if (v !== null) p.second = v;
        const frac = /^\.(\d+)/.exec(text.slice(i));
        if (frac) {
          p.fraction = frac[1]!;
          i += frac[0].length;
        }
        break;
      }
      case 'p':
      case 'P': {
        const k = word(['AM', 'PM'], null);
        if (k === null) return null;
        pm = k === 1;
        break;
      }
      case 'j':
        v = digits(loose ? 1 : 3, 3);
        break;
      case 'b':
        v = word(MONTHS, 3);
        if (v !== null) p.month = v + 1;
        break;
      case 'B':
        v = word(MONTHS, null);
        if (v !== null) p.month = v + 1;
        break;
      case 'a':
        v = word(DAYS, 3);
        break;
      case 'A':
        v = word(DAYS, null);
        break;
      case 'Q': {
        const q = parseDateTime(text.slice(i), '%Y-%m-%d %H:%M:%S') ?? parseDateTime(text.slice(i), '%Y-%m-%d');
        if (!q) return null;
        Object.assign(p, q);
        i = text.length;
        break;
      }
      case '%':
        if (text[i] !== '%') return null;
        i++;
        break;
      default:
        return null;
    }
    if (v === null) return null;
  }
  if (i !== text.length) return null;
  if (pm !== null) p.hour = (p.hour % 12) + (pm ? 12 : 0);
  return validDate(p) ? p : null;
}

/** `$ZDATE(day, format)` for the common formats 1–12 (1 = MM/DD/YYYY, 3 = ODBC, 8 = YYYYMMDD). */
export function zdate(day: number, format: number): string {
  const p = dayToParts(day);
  const mon = MONTHS[p.month - 1]!;
  switch (format) {
    case 2:
      return `${pad(p.day)} ${mon.slice(0, 3)} ${p.year}`;
    case 3:
      return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
    case 4:
      return `${pad(p.day)}/${pad(p.month)}/${pad(p.year, 4)}`;
    case 5:
      return `${mon.slice(0, 3)} ${p.day}, ${p.year}`;
    case 6:
      return `${mon.slice(0, 3)} ${p.day} ${p.year}`;
    case 7:
      return `${mon.slice(0, 3)} ${pad(p.day)} ${p.year}`;
    case 8:
      return `${pad(p.year, 4)}${pad(p.month)}${pad(p.day)}`;
    case 9:
      return `${mon} ${p.day}, ${p.year}`;
    case 10:
      return String(weekday(p));
    case 11:
      return DAYS[weekday(p)]!.slice(0, 3);
    case 12:
      return DAYS[weekday(p)]!;
    default:
      return `${pad(p.month)}/${pad(p.day)}/${pad(p.year, 4)}`;
  }
}

const ZDATE_FORMATS: Record<number, string> = { 1: '%m/%d/%Y', 3: '%Y-%m-%d', 4: '%d/%m/%Y', 8: '%Y%m%d', 2: '%d %b %Y' };

/** `$ZDATEH(text, format)`: the day number, or null when the text is not a date in that format. */
export function zdateh(text: string, format: number): number | null {
  const parts = parseDateTime(text, ZDATE_FORMATS[format] ?? ZDATE_FORMATS[1]!);
  return parts ? horologDay(parts) : null;
}

export function ztime(seconds: number, format: number): string {
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (format === 2) return `${pad(h)}:${pad(m)}`;
  if (format === 3) return `${pad(h % 12 === 0 ? 12 : h % 12)}:${pad(m)}:${pad(s % 60)}${h < 12 ? 'AM' : 'PM'}`;
  return `${pad(h)}:${pad(m)}:${pad(s % 60)}`;
}

export function ztimeh(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)?$/i.exec(text.trim());
  if (!m) return null;
  let h = Number(m[1]);
  if (m[4]) h = (h % 12) + (m[4].toUpperCase() === 'PM' ? 12 : 0);
  const total = h * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  return h > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59 ? null : total;
}

/** `$HOROLOG` of a moment, in the host's local time: "days,seconds". */
export function horolog(date: Date): string {
  const p = partsFromDate(date);
  return `${horologDay(p)},${p.hour * 3600 + p.minute * 60 + p.second}`;
}

/** `$ZTIMESTAMP` (UTC, with milliseconds): "days,seconds.fff". */
export function ztimestamp(date: Date): string {
  const ms = date.getTime();
  const day = Math.floor(ms / 86_400_000);
  const seconds = (ms - day * 86_400_000) / 1000;
  return `${day + HOROLOG_EPOCH_DAYS},${seconds.toFixed(3).replace(/\.?0+$/, '')}`;
}
