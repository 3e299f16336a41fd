import { describe, expect, it } from 'vitest';
import { scheduleProblem } from './schedule-spec.ts';

describe('scheduleProblem', () => {
  it('accepts no schedule, a named one and IRIS event lists', () => {
    for (const schedule of [
      '',
      '  ',
      '@WorkingHours',
      'START:*-*-*T08:00:00,STOP:*-*-*T17:00:00',
      'START:2026-12-24T06:30:00',
      'START:WEEK-*-01T08:00:00,STOP:WEEK-*-05T17:00:00',
      'start:week-02-00T00:00:00, stop:*-01-*T23:59:59',
    ]) {
      expect(scheduleProblem(schedule), schedule).toBe('');
    }
  });

  it('says what is wrong with an invalid schedule', () => {
    expect(scheduleProblem('every day at 8')).toBe('"every day at 8" must be START:… or STOP:…');
    expect(scheduleProblem('RUN:*-*-*T08:00:00')).toBe('the action "RUN" must be START or STOP');
    expect(scheduleProblem('START:*-*-*')).toBe('"*-*-*" must be a date and a time, e.g. *-*-*T08:00:00');
    expect(scheduleProblem('START:*-13-*T08:00:00')).toBe('the month "13" must be 01 to 12 or *');
    expect(scheduleProblem('START:*-*-32T08:00:00')).toBe('the day "32" must be 01 to 31 or *');
    expect(scheduleProblem('START:26-*-*T08:00:00')).toBe('the year "26" must be four digits or *');
    expect(scheduleProblem('START:*-*T08:00:00')).toBe('the date "*-*" must be YYYY-MM-DD or WEEK-nn-0d (each part a number or *)');
    expect(scheduleProblem('START:*-*-*T25:00:00')).toBe('the time "25:00:00" must be hh:mm:ss (00:00:00 to 23:59:59)');
    expect(scheduleProblem('START:*-*-*T08:00')).toBe('the time "08:00" must be hh:mm:ss (00:00:00 to 23:59:59)');
    expect(scheduleProblem('START:WEEK-06-01T08:00:00')).toBe('the week "06" must be 01 to 05 or *');
    expect(scheduleProblem('START:WEEK-*-07T08:00:00')).toBe('the day of the week "07" must be 00 (Sunday) to 06 (Saturday) or *');
    expect(scheduleProblem('START:*-*-*T08:00:00,,STOP:*-*-*T09:00:00')).toBe('an empty event between commas');
    expect(scheduleProblem('@')).toBe('the schedule name "@" must be @ and a name (letters, digits, . _ % -)');
  });
});
