import { describe, expect, it } from 'vitest';
import { formatTraceParent, parseTraceParent } from './traceparent.ts';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads and writes version 00', () => {
    const text = `00-${traceId}-${spanId}-01`;
    expect(parseTraceParent(text)).toEqual({ traceId, spanId, traceFlags: 1 });
    expect(formatTraceParent({ traceId, spanId, traceFlags: 1 })).toBe(text);
    expect(formatTraceParent({ traceId, spanId, traceFlags: 0 })).toBe(`00-${traceId}-${spanId}-00`);
  });

  it('accepts upper case and a later version with more fields', () => {
    expect(parseTraceParent(`00-${traceId.toUpperCase()}-${spanId}-01`)?.traceId).toBe(traceId);
    expect(parseTraceParent(`01-${traceId}-${spanId}-01-extra`)).toEqual({ traceId, spanId, traceFlags: 1 });
  });

  it('refuses what cannot be continued', () => {
    for (const bad of [
      null,
      undefined,
      '',
      'garbage',
      `00-${'0'.repeat(32)}-${spanId}-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `ff-${traceId}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${traceId.slice(1)}-${spanId}-01`,
      `00-${traceId}-${spanId}-1`,
    ]) {
      expect(parseTraceParent(bad), String(bad)).toBeNull();
    }
  });
});
