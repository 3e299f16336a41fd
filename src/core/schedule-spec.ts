/**
 * An item's Schedule, as IRIS writes it (Ens.Config.Item's Schedule property): empty (always run), a
 * named schedule `@Name`, or a list of events `ACTION:DATE-TIME` separated by commas, where ACTION is
 * START or STOP and DATE-TIME is `YYYY-MM-DDThh:mm:ss` — each of YYYY, MM and DD a number or `*`
 * (every) — or `WEEK-nn-0dThh:mm:ss`, the day `d` (0 Sunday … 6 Saturday) of week `nn` of the month
 * (01–05 or `*`). Conveyor stores and exports the schedule as IRIS does; this check keeps a mistyped
 * one from being stored at all (the portal runs the same check as you type).
 */

const namedSchedule = /^@[A-Za-z0-9_.%-]+$/;
const time = /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

function dateProblem(date: string): string {
  const week = /^WEEK-([^-]*)-([^-]*)$/i.exec(date);
  if (week) {
    const [, nn = '', day = ''] = week;
    if (nn !== '*' && !/^0[1-5]$/.test(nn)) return `the week ${JSON.stringify(nn)} must be 01 to 05 or *`;
    if (day !== '*' && !/^0[0-6]$/.test(day)) return `the day of the week ${JSON.stringify(day)} must be 00 (Sunday) to 06 (Saturday) or *`;
    return '';
  }
  const parts = date.split('-');
  if (parts.length !== 3) return `the date ${JSON.stringify(date)} must be YYYY-MM-DD or WEEK-nn-0d (each part a number or *)`;
  const [year = '', month = '', day = ''] = parts;
  if (year !== '*' && !/^\d{4}$/.test(year)) return `the year ${JSON.stringify(year)} must be four digits or *`;
  if (month !== '*' && !/^(0[1-9]|1[0-2])$/.test(month)) return `the month ${JSON.stringify(month)} must be 01 to 12 or *`;
  if (day !== '*' && !/^(0[1-9]|[12]\d|3[01])$/.test(day)) return `the day ${JSON.stringify(day)} must be 01 to 31 or *`;
  return '';
}

function eventProblem(event: string): string {
  const colon = event.indexOf(':');
  if (colon < 0) return `${JSON.stringify(event)} must be START:… or STOP:…`;
  const action = event.slice(0, colon).trim();
  if (!/^(START|STOP)$/i.test(action)) return `the action ${JSON.stringify(action)} must be START or STOP`;
  const when = event.slice(colon + 1).trim();
  const t = when.toUpperCase().lastIndexOf('T');
  if (t < 0) return `${JSON.stringify(when)} must be a date and a time, e.g. *-*-*T08:00:00`;
  const problem = dateProblem(when.slice(0, t));
  if (problem) return problem;
  const clock = when.slice(t + 1);
  if (!time.test(clock)) return `the time ${JSON.stringify(clock)} must be hh:mm:ss (00:00:00 to 23:59:59)`;
  return '';
}

/** '' when `schedule` is a valid IRIS schedule (or empty), else what is wrong with it. */
export function scheduleProblem(schedule: string): string {
  const text = schedule.trim();
  if (text === '') return '';
  if (text.startsWith('@')) return namedSchedule.test(text) ? '' : `the schedule name ${JSON.stringify(text)} must be @ and a name (letters, digits, . _ % -)`;
  for (const event of text.split(',')) {
    if (event.trim() === '') return 'an empty event between commas';
    const problem = eventProblem(event.trim());
    if (problem) return problem;
  }
  return '';
}
