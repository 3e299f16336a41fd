/**
 * When a failed request is tried again. IRIS operations fail a message on error unless their
 * `ReplyCodeActions` say otherwise; we honour the one action that matters most: `E=R` (retry on
 * error), every `RetryInterval` seconds (default 5) until `FailureTimeout` seconds (default 15,
 * -1 = forever) have passed since the first attempt. Anything else fails at once.
 */
export interface RetryPolicy {
  retryOnError: boolean;
  retryIntervalMs: number;
  failureTimeoutMs: number;
}

export function retryPolicyFromSettings(host: Record<string, string>): RetryPolicy {
  const actions = (host['ReplyCodeActions'] ?? '').split(',').map((a) => a.trim().toUpperCase());
  const seconds = (name: string, fallback: number): number => {
    const value = Number(host[name]);
    return Number.isFinite(value) && host[name] !== undefined && host[name] !== '' ? value : fallback;
  };
  const timeout = seconds('FailureTimeout', 15);
  return {
    retryOnError: actions.includes('E=R'),
    retryIntervalMs: Math.max(0, seconds('RetryInterval', 5)) * 1000,
    failureTimeoutMs: timeout < 0 ? Number.POSITIVE_INFINITY : timeout * 1000,
  };
}

/** Milliseconds to wait before the next attempt, or null to fail now. */
export function nextRetryDelay(policy: RetryPolicy, firstAttemptAt: number, now: number): number | null {
  if (!policy.retryOnError) return null;
  if (now + policy.retryIntervalMs - firstAttemptAt > policy.failureTimeoutMs) return null;
  return policy.retryIntervalMs;
}
