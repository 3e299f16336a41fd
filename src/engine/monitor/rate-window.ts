/**
 * Events per second over the last minutes, from a ring of per-second buckets: recording is one
 * array write (no allocation), reading sums at most `seconds` buckets. Buckets older than the ring
 * are recycled lazily when time moves on, so an idle item costs nothing.
 */
export class RateWindow {
  readonly #counts: Uint32Array;
  /** The second (epoch seconds) each bucket holds; a bucket whose second is stale counts as zero. */
  readonly #seconds: Float64Array;

  constructor(readonly spanSeconds: number = 300) {
    this.#counts = new Uint32Array(spanSeconds);
    this.#seconds = new Float64Array(spanSeconds).fill(-1);
  }

  record(nowMs: number, count = 1): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % this.spanSeconds;
    if (this.#seconds[slot] !== second) {
      this.#seconds[slot] = second;
      this.#counts[slot] = 0;
    }
    this.#counts[slot] = (this.#counts[slot] ?? 0) + count;
  }

  /** Events in the last `seconds` whole seconds before now (the current, partial second included). */
  total(nowMs: number, seconds: number): number {
    const newest = Math.floor(nowMs / 1000);
    const span = Math.min(seconds, this.spanSeconds);
    let sum = 0;
    for (let second = newest - span + 1; second <= newest; second++) {
      const slot = ((second % this.spanSeconds) + this.spanSeconds) % this.spanSeconds;
      if (this.#seconds[slot] === second) sum += this.#counts[slot] ?? 0;
    }
    return sum;
  }

  /** Mean events per second over the last `seconds`. */
  rate(nowMs: number, seconds: number): number {
    return this.total(nowMs, seconds) / Math.min(seconds, this.spanSeconds);
  }
}
