/**
 * Node fires a timer whose delay is above 2^31-1 ms after 1 ms instead (with a warning). A wait
 * given by a user (a test call's timeout, a component's timer or sync-send timeout) could be that
 * large, and must then wait as long as a timer can, not end at once.
 */

/** The longest delay a Node timer keeps (about 24.8 days). */
export const maxTimerDelayMs = 2 ** 31 - 1;

/** `ms` as a delay a timer honours: at least 0, at most maxTimerDelayMs, never NaN. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, maxTimerDelayMs);
}
