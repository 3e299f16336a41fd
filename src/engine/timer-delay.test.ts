import { describe, expect, it } from 'vitest';
import { maxTimerDelayMs, timerDelay } from './timer-delay.ts';

describe('timerDelay', () => {
  it('keeps a delay a timer honours', () => {
    expect(timerDelay(1500)).toBe(1500);
  });

  it('caps a delay Node would turn into 1 ms', () => {
    expect(timerDelay(1e300 * 1000)).toBe(maxTimerDelayMs);
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(maxTimerDelayMs);
  });

  it('turns a negative or NaN delay into 0', () => {
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });
});
