import { describe, expect, it } from 'vitest';
import { testBodyLimit } from '../core/contract/spec-routes.ts';
import { listRecord, testReply } from './engine-json.ts';

describe('testReply', () => {
  it('keeps a body of exactly the limit whole', () => {
    expect(testReply('c', 'x'.repeat(testBodyLimit))).toEqual({ classname: 'c', body: 'x'.repeat(testBodyLimit), truncated: false });
  });

  it('never cuts inside a surrogate pair', () => {
    const body = `${'x'.repeat(testBodyLimit - 1)}😀tail`;
    const reply = testReply('c', body);
    expect(reply.truncated).toBe(true);
    expect(reply.body).toBe('x'.repeat(testBodyLimit - 1));
  });
});

describe('listRecord', () => {
  it('capitalises the status and formats the times, empty when never set', () => {
    expect(listRecord({ status: 'troubled', lastStartTime: Date.UTC(2026, 0, 2, 3, 4, 5), lastStopTime: null, autoStart: true })).toEqual({
      Status: 'Troubled',
      LastStartTime: '2026-01-02 03:04:05',
      LastStopTime: '',
      AutoStart: true,
    });
  });
});
