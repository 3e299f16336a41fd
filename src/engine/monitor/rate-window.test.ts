import { describe, expect, it } from 'vitest';
import { RateWindow } from './rate-window.ts';

describe('RateWindow', () => {
  it('sums the events of the last seconds and forgets what is older', () => {
    const window = new RateWindow(300);
    const t0 = 1_000_000_000;
    window.record(t0);
    window.record(t0 + 500);
    window.record(t0 + 30_000, 4);
    expect(window.total(t0 + 30_900, 60)).toBe(6);
    expect(window.rate(t0 + 30_900, 60)).toBeCloseTo(6 / 60);
    // 61 s after the first events, the one-minute total only has the later ones; five minutes still has all.
    expect(window.total(t0 + 61_000, 60)).toBe(4);
    expect(window.total(t0 + 61_000, 300)).toBe(6);
    expect(window.rate(t0 + 61_000, 300)).toBeCloseTo(6 / 300);
  });

  it('recycles a bucket when the ring comes round to it again', () => {
    const window = new RateWindow(10);
    const t0 = 5_000_000;
    window.record(t0, 7);
    window.record(t0 + 10_000, 2); // the same slot, ten seconds later
    expect(window.total(t0 + 10_000, 10)).toBe(2);
    expect(window.total(t0 + 400_000, 10)).toBe(0);
  });

  it('caps a request for more seconds than it keeps', () => {
    const window = new RateWindow(5);
    window.record(10_000, 5);
    expect(window.rate(10_000, 60)).toBe(1);
  });
});
