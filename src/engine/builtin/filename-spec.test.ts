import { describe, expect, it } from 'vitest';
import { expandFilenameSpec } from './filename-spec.ts';

// 2026-03-05 07:08:09.042 in the server's local time zone.
const at = new Date(2026, 2, 5, 7, 8, 9, 42);

describe('IRIS file name time stamps', () => {
  it('gives IRIS default %f_%Q as the original name and the ODBC time made fit for a file name', () => {
    expect(expandFilenameSpec('%f_%Q', 'in/order.txt', at)).toBe('order.txt_2026-03-05_07.08.09.042');
    expect(expandFilenameSpec('%q', 'x', at)).toBe('2026-03-05_07.08.09');
  });

  it('replaces the date and time codes, # dropping leading zeros', () => {
    expect(expandFilenameSpec('%Y%m%d%H%M%S_%f', 'a.csv', at)).toBe('20260305070809_a.csv');
    expect(expandFilenameSpec('%#m-%#d-%#H-%#M-%#S-%y-%j-%#j-%s', 'a', at)).toBe('3-5-7-8-9-26-064-64-042');
    expect(expandFilenameSpec('%a %A %b %B %w %p %I', 'a', at)).toBe('Thu Thursday Mar March 4 AM 07');
  });

  it('keeps literal text, unknown codes and %% as one %', () => {
    expect(expandFilenameSpec('out-%z-100%%.dat', 'a', at)).toBe('out-%z-100%.dat');
  });

  it('reads the time in UTC after a leading %K(UTC)', () => {
    const utc = new Date(Date.UTC(2026, 0, 1, 23, 30, 0, 0));
    expect(expandFilenameSpec('%K(UTC)%Y-%m-%d %H', 'a', utc)).toBe('2026-01-01 23');
  });

  it('never lets a code put a folder separator or a colon into the name', () => {
    expect(expandFilenameSpec('%f', 'a:b', at)).toBe('a_b');
    expect(expandFilenameSpec('%f', '../../etc/passwd', at)).toBe('passwd');
  });
});
