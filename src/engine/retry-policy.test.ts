import { describe, expect, it } from 'vitest';
import { nextRetryDelay, retryPolicyFromSettings } from './retry-policy.ts';

describe('retry policy', () => {
  it('fails at once by default', () => {
    const policy = retryPolicyFromSettings({});
    expect(policy.retryOnError).toBe(false);
    expect(nextRetryDelay(policy, 0, 0)).toBeNull();
  });

  it('retries on E=R every RetryInterval until FailureTimeout', () => {
    const policy = retryPolicyFromSettings({ ReplyCodeActions: 'e=r', RetryInterval: '2', FailureTimeout: '5' });
    expect(nextRetryDelay(policy, 0, 0)).toBe(2000);
    expect(nextRetryDelay(policy, 0, 3000)).toBe(2000);
    expect(nextRetryDelay(policy, 0, 3500)).toBeNull();
  });

  it('retries forever with FailureTimeout -1', () => {
    const policy = retryPolicyFromSettings({ ReplyCodeActions: 'E=R', RetryInterval: '1', FailureTimeout: '-1' });
    expect(nextRetryDelay(policy, 0, 10 ** 9)).toBe(1000);
  });
});
