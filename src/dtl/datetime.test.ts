import { describe, expect, it } from 'vitest';
import { formatDateTime, horolog, horologDay, parseDateTime, zdate, zdateh, ztime, ztimeh, ztimestamp } from './datetime.ts';

describe('date and time formats', () => {
  it('parses and formats the strftime-like codes', () => {
    const p = parseDateTime('2024-03-05 14:30:07', '%Q')!;
    expect(p).toMatchObject({ year: 2024, month: 3, day: 5, hour: 14, minute: 30, second: 7 });
    expect(formatDateTime(p, '%d/%m/%y %I:%M %p %j %a %A %b %B %%')).toBe('05/03/24 02:30 PM 065 Tue Tuesday Mar March %');
    expect(formatDateTime(p, '%#m/%#d/%Y')).toBe('3/5/2024');
    expect(formatDateTime(p, 'file-%f.txt', 'x')).toBe('file-x.txt');
    expect(parseDateTime('05 Mar 2024', '%d %b %Y')).toMatchObject({ month: 3 });
    expect(parseDateTime('2024-03-05T14:30:07.250', '%Y-%m-%dT%H:%M:%S')!.fraction).toBe('250');
  });

  it('refuses text that does not match or is not a real date', () => {
    expect(parseDateTime('2024-02-30', '%Y-%m-%d')).toBeNull();
    expect(parseDateTime('2024-03-05x', '%Y-%m-%d')).toBeNull();
    expect(parseDateTime('24:00', '%H:%M')).toBeNull();
  });

  it('converts $HOROLOG day numbers both ways', () => {
    expect(horologDay({ year: 1970, month: 1, day: 1 })).toBe(47117);
    expect(horologDay({ year: 1841, month: 1, day: 1 })).toBe(1);
    expect(zdate(47117, 3)).toBe('1970-01-01');
    expect(zdate(47117, 5)).toBe('Jan 1, 1970');
    expect(zdate(47117, 12)).toBe('Thursday');
    expect(zdateh('01/01/1970', 1)).toBe(47117);
    expect(zdateh('bad', 1)).toBeNull();
    expect(ztime(3661, 1)).toBe('01:01:01');
    expect(ztime(3661, 2)).toBe('01:01');
    expect(ztimeh('01:01:01')).toBe(3661);
    expect(ztimeh('25:00')).toBeNull();
    expect(horolog(new Date(1970, 0, 1, 0, 1, 0))).toBe('47117,60');
    expect(ztimestamp(new Date(Date.UTC(1970, 0, 2, 0, 0, 1, 500)))).toBe('47118,1.5');
  });
});
