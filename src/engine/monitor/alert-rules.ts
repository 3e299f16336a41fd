/**
 * The decisions of alerting that need no engine: whether an alert repeated within the window is
 * sent again, and whether an item restarts "repeatedly". Pure and clock-driven, so unit-tested
 * without timers.
 */

/** Alerts of one key are sent (event log, Ens.Alert) at most once per window; repeats inside it are only counted. */
export class RepeatGate {
  readonly #lastSent = new Map<string, number>();

  constructor(readonly windowMs: number) {}

  /** True when this occurrence is to be sent; false when it repeats one sent less than a window ago. */
  admit(key: string, now: number): boolean {
    const last = this.#lastSent.get(key);
    if (last !== undefined && now - last < this.windowMs) return false;
    this.#lastSent.set(key, now);
    return true;
  }
}

/** Job restarts of an item within a sliding period; "repeatedly" is `threshold` restarts or more in it. */
export class RestartCounter {
  readonly #times = new Map<string, number[]>();

  constructor(
    readonly threshold: number,
    readonly periodMs: number,
  ) {}

  /** Counts a restart; returns how many happened in the period when that reaches the threshold, else null. */
  restarted(item: string, now: number): number | null {
    const recent = (this.#times.get(item) ?? []).filter((time) => now - time < this.periodMs);
    recent.push(now);
    this.#times.set(item, recent);
    return recent.length >= this.threshold ? recent.length : null;
  }
}

/** The error text without what differs between two failures of the same cause (message ids). */
export function failureKey(text: string): string {
  return text.replace(/\bmessage \d+\b/g, 'message #').slice(0, 500);
}
