import { describe, expect, it } from 'vitest';
import { withRequestsInHand, type QueueHolder } from './queue-depths.ts';

const holder = (takenStayQueued: boolean, requestsInHand: number): QueueHolder => ({ queue: { takenStayQueued }, requestsInHand });

describe('withRequestsInHand', () => {
  it('counts the requests jobs hold as in progress where the store still says queued', () => {
    const depths = [
      { target: 'Local', queued: 5, delivered: 0, oldest: 1 },
      { target: 'Claimed', queued: 3, delivered: 2, oldest: 2 },
      { target: 'Gone', queued: 1, delivered: 0, oldest: 3 },
    ];
    const hosts = new Map([
      ['Local', holder(true, 2)],
      ['Claimed', holder(false, 2)],
    ]);
    expect(withRequestsInHand(depths, hosts)).toEqual([
      { target: 'Local', queued: 3, delivered: 2, oldest: 1 },
      { target: 'Claimed', queued: 3, delivered: 2, oldest: 2 },
      { target: 'Gone', queued: 1, delivered: 0, oldest: 3 },
    ]);
    expect(withRequestsInHand(depths, undefined)).toBe(depths);
  });
});
