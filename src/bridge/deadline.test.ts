import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from './deadline.ts';

describe('Deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once when its budget is spent', () => {
    const fired = vi.fn();
    new Deadline(1000).start(fired);
    vi.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(5000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('does not count paused time, nested pauses included', () => {
    const fired = vi.fn();
    const deadline = new Deadline(1000);
    deadline.start(fired);
    vi.advanceTimersByTime(600);
    deadline.pause();
    deadline.pause();
    vi.advanceTimersByTime(10_000);
    deadline.resume();
    vi.advanceTimersByTime(10_000);
    expect(fired).not.toHaveBeenCalled();
    deadline.resume();
    vi.advanceTimersByTime(399);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('never fires once cleared', () => {
    const fired = vi.fn();
    const deadline = new Deadline(100);
    deadline.start(fired);
    deadline.pause();
    deadline.clear();
    deadline.resume();
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
  });
});
