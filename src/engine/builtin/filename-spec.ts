/**
 * IRIS's time-stamp specifications for file names (the `Filename` setting of file operations,
 * default `%f_%Q`): `%` codes are replaced, everything else is kept. The codes follow IRIS's table
 * "Time Stamp Specifications for Filenames"; `#` after `%` drops leading zeros. Times are local
 * unless the specification starts with `%K(UTC)`. Characters a file name cannot hold (`/`, `\`,
 * `:` and control characters) are replaced by `_` in what a code produces, never in the literal text.
 */

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface TimeParts {
  year: number;
  month: number; // 1-12
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
  weekday: number; // 0 = Sunday
  dayOfYear: number;
}

function partsOf(time: Date, utc: boolean): TimeParts {
  const year = utc ? time.getUTCFullYear() : time.getFullYear();
  const month = (utc ? time.getUTCMonth() : time.getMonth()) + 1;
  const day = utc ? time.getUTCDate() : time.getDate();
  const startOfYear = Date.UTC(year, 0, 1);
  return {
    year,
    month,
    day,
    hours: utc ? time.getUTCHours() : time.getHours(),
    minutes: utc ? time.getUTCMinutes() : time.getMinutes(),
    seconds: utc ? time.getUTCSeconds() : time.getSeconds(),
    milliseconds: utc ? time.getUTCMilliseconds() : time.getMilliseconds(),
    weekday: utc ? time.getUTCDay() : time.getDay(),
    dayOfYear: Math.round((Date.UTC(year, month - 1, day) - startOfYear) / 86_400_000) + 1,
  };
}

const pad = (value: number, width: number, trim: boolean): string => (trim ? String(value) : String(value).padStart(width, '0'));

/** ODBC date and time made fit for a file name: `yyyy-mm-dd_hh.mm.ss`, with `.sss` milliseconds when asked. */
function odbc(t: TimeParts, withMilliseconds: boolean): string {
  const date = `${t.year}-${pad(t.month, 2, false)}-${pad(t.day, 2, false)}`;
  const clock = `${pad(t.hours, 2, false)}.${pad(t.minutes, 2, false)}.${pad(t.seconds, 2, false)}`;
  return `${date}_${clock}${withMilliseconds ? `.${pad(t.milliseconds, 3, false)}` : ''}`;
}

function code(letter: string, trim: boolean, t: TimeParts, originalName: string): string | undefined {
  const hour12 = t.hours % 12 === 0 ? 12 : t.hours % 12;
  switch (letter) {
    case 'f':
      return originalName;
    case 'Y':
      return String(t.year);
    case 'y':
      return pad(t.year % 100, 2, trim);
    case 'm':
      return pad(t.month, 2, trim);
    case 'd':
      return pad(t.day, 2, trim);
    case 'H':
      return pad(t.hours, 2, trim);
    case 'I':
      return pad(hour12, 2, trim);
    case 'M':
      return pad(t.minutes, 2, trim);
    case 'S':
      return pad(t.seconds, 2, trim);
    case 's':
      return pad(t.milliseconds, 3, trim);
    case 'j':
      return pad(t.dayOfYear, 3, trim);
    case 'w':
      return String(t.weekday);
    case 'p':
      return t.hours < 12 ? 'AM' : 'PM';
    case 'a':
      return weekdays[t.weekday]!.slice(0, 3);
    case 'A':
      return weekdays[t.weekday];
    case 'b':
      return months[t.month - 1]!.slice(0, 3);
    case 'B':
      return months[t.month - 1];
    case 'q':
      return odbc(t, false);
    case 'Q':
      return odbc(t, true);
    case '%':
      return '%';
    default:
      return undefined;
  }
}

const UTC_PREFIX = '%K(UTC)';

/** The file name `spec` gives for a file first named `originalName` (its folder dropped) at `time`. */
export function expandFilenameSpec(spec: string, originalName: string, time: Date): string {
  const utc = spec.toUpperCase().startsWith(UTC_PREFIX);
  const body = utc ? spec.slice(UTC_PREFIX.length) : spec;
  const parts = partsOf(time, utc);
  const name = originalName.split(/[/\\]/).pop() ?? '';
  return body.replace(/%(#?)(.)/gs, (whole, hash: string, letter: string) => {
    const value = code(letter, hash === '#', parts, name);
    return value === undefined ? whole : value.replace(/[/\\:\u0000-\u001f]/g, '_');
  });
}
