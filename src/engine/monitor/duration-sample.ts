/**
 * Processing times of one item: an exact mean (sum and count) and a p95 from a bounded uniform
 * reservoir (Vitter's algorithm R), so memory stays fixed whatever the traffic and recording is a
 * few arithmetic operations. The percentile is computed only when someone reads it.
 */
export class DurationSample {
  readonly #reservoir: Float64Array;
  #seen = 0;
  #sum = 0;
  readonly #random: () => number;

  constructor(
    readonly capacity: number = 1024,
    random: () => number = Math.random,
  ) {
    this.#reservoir = new Float64Array(capacity);
    this.#random = random;
  }

  record(ms: number): void {
    this.#sum += ms;
    const seen = this.#seen++;
    if (seen < this.capacity) {
      this.#reservoir[seen] = ms;
      return;
    }
    const slot = Math.floor(this.#random() * (seen + 1));
    if (slot < this.capacity) this.#reservoir[slot] = ms;
  }

  get count(): number {
    return this.#seen;
  }

  /** Mean of every recorded duration, null before the first. */
  mean(): number | null {
    return this.#seen === 0 ? null : this.#sum / this.#seen;
  }

  /** The q-quantile (0..1) of the sample by the nearest-rank method, null before the first. */
  quantile(q: number): number | null {
    const size = Math.min(this.#seen, this.capacity);
    if (size === 0) return null;
    const sorted = this.#reservoir.slice(0, size).sort();
    return sorted[Math.min(size - 1, Math.max(0, Math.ceil(q * size) - 1))] ?? null;
  }
}
