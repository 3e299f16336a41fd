/**
 * A time budget for one wait on Python code. The clock can pause while the engine, not Python, is
 * working for that wait (an op the hook made, such as a synchronous send, which has its own
 * timeout), so the budget bounds time spent in Python only. Pausing costs a clock read; the timer
 * is re-armed only when it fires early.
 */
export class Deadline {
  private spentMs = 0;
  private runningSince = 0;
  private pauses = 0;
  private timer: NodeJS.Timeout | null = null;
  private onExpire: (() => void) | null = null;

  constructor(readonly budgetMs: number) {}

  /** Starts the clock; `onExpire` runs once the budget is spent (at most once). */
  start(onExpire: () => void): void {
    this.onExpire = onExpire;
    this.runningSince = performance.now();
    this.arm(this.budgetMs);
  }

  pause(): void {
    if (this.pauses++ === 0) this.spentMs += performance.now() - this.runningSince;
  }

  resume(): void {
    if (this.pauses === 0 || --this.pauses > 0) return;
    this.runningSince = performance.now();
    if (this.timer === null && this.onExpire !== null) this.arm(this.budgetMs - this.spentMs);
  }

  /** The wait ended: the budget will not fire. */
  clear(): void {
    this.onExpire = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), Math.max(1, Math.ceil(ms)));
  }

  private check(): void {
    this.timer = null;
    const expire = this.onExpire;
    // Paused: resume() re-arms with what is left.
    if (expire === null || this.pauses > 0) return;
    const left = this.budgetMs - this.spentMs - (performance.now() - this.runningSince);
    if (left > 0) {
      this.arm(left);
      return;
    }
    this.onExpire = null;
    expire();
  }
}
