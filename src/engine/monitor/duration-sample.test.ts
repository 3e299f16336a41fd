import { describe, expect, it } from 'vitest';
import { DurationSample } from './duration-sample.ts';

describe('DurationSample', () => {
  it('has no mean or p95 before the first duration', () => {
    const sample = new DurationSample();
    expect(sample.mean()).toBeNull();
    expect(sample.quantile(0.95)).toBeNull();
  });

  it('gives the exact mean and the nearest-rank p95 while everything fits', () => {
    const sample = new DurationSample(1000);
    for (let ms = 1; ms <= 100; ms++) sample.record(ms);
    expect(sample.mean()).toBe(50.5);
    expect(sample.quantile(0.95)).toBe(95);
    expect(sample.quantile(1)).toBe(100);
    expect(sample.count).toBe(100);
  });

  it('keeps a bounded reservoir past its capacity: the mean stays exact, the p95 close', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const sample = new DurationSample(256, random);
    for (let i = 0; i < 100_000; i++) sample.record(i % 1000);
    expect(sample.count).toBe(100_000);
    expect(sample.mean()).toBeCloseTo(499.5);
    const p95 = sample.quantile(0.95)!;
    expect(p95).toBeGreaterThan(880);
    expect(p95).toBeLessThan(1000);
  });
});
