import { describe, expect, it } from 'vitest';
import { mergeDefined } from './patch-merge.ts';

describe('mergeDefined', () => {
  it('lets a later field win, keeps null as a value and a field given as undefined as absent, and changes neither input', () => {
    const base = { id: 1, status: 'delivered', leaseOwner: 'job-1', error: 'x' };
    const next = { status: 'completed', leaseOwner: null, error: undefined };
    expect(mergeDefined<Record<string, unknown>>(base, next)).toEqual({ id: 1, status: 'completed', leaseOwner: null, error: 'x' });
    expect(base).toEqual({ id: 1, status: 'delivered', leaseOwner: 'job-1', error: 'x' });
    expect(next).toEqual({ status: 'completed', leaseOwner: null, error: undefined });
  });
});
