import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './search-cursor.ts';

describe('search cursor', () => {
  it('round-trips a message id as opaque url-safe text', () => {
    for (const id of [1, 42, 9_007_199_254_740_991]) {
      const cursor = encodeCursor(id);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor)).toBe(id);
    }
  });

  it.each(['', 'abc', '42', 'bTE6MA', 'bTE6LTE', encodeCursor(5).replace(/.$/, '!'), Buffer.from('m1:99999999999999999').toString('base64url')])(
    'refuses %j',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_INPUT', message: expect.stringContaining('is not a cursor') }));
    },
  );
});
