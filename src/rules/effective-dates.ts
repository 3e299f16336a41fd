/**
 * A rule set's effective interval (IRIS: `effectiveBegin` is included, `effectiveEnd` excluded;
 * `YYYY-MM-DDTHH:MM:SS` with the time optional — a begin date alone means 00:00:00, an end date
 * alone 24:00:00, so the end day is included). Times are the server's local wall clock, as IRIS
 * compares them with its local time. An empty bound is open.
 */

function parse(value: string, endOfDay: boolean): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value)!;
  const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  if (m[4] === undefined) return endOfDay ? new Date(year, month, day + 1) : new Date(year, month, day);
  return new Date(year, month, day, Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
}

export function inEffect(begin: string, end: string, now: Date): boolean {
  if (begin !== '' && now.getTime() < parse(begin, false).getTime()) return false;
  if (end !== '' && now.getTime() >= parse(end, true).getTime()) return false;
  return true;
}

/** `YYYY-MM-DDTHH:MM:SS` in the server's local time: the form the effective dates are written in. */
export function localStamp(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}
