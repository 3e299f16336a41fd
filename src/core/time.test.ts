import { describe, expect, it } from 'vitest';
import { formatTimestamp, formatTimestampMs } from './time.ts';

describe('time formats', () => {
  it('formats seconds and milliseconds in UTC', () => {
    const t = Date.UTC(2026, 0, 5, 7, 8, 9, 45);
    expect(formatTimestamp(t)).toBe('2026-01-05 07:08:09');
    expect(formatTimestampMs(t)).toBe('2026-01-05 07:08:09.045');
  });
});
