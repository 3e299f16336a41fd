/**
 * The live figures of one item on this node since the server started, kept in memory only (no store
 * write per message): messages in and out, outcomes, processing times and handling rates. Every
 * record is a few counter bumps; the reads (monitor, metrics) do the summing.
 */
import { DurationSample } from './duration-sample.ts';
import { RateWindow } from './rate-window.ts';

export interface ItemFigures {
  /** Requests addressed to the item (services: inputs handled). */
  messagesIn: number;
  /** Requests the item sent to other items. */
  messagesOut: number;
  /** Requests handled successfully. */
  processed: number;
  /** Requests whose handling failed for good. */
  failed: number;
  /** Epoch ms of the item's last message in, out or handled; null before any. */
  lastActivity: number | null;
  meanMs: number | null;
  p95Ms: number | null;
  /** Requests handled per second over the last minute and the last five minutes. */
  rate1m: number;
  rate5m: number;
}

export class ItemStatistics {
  messagesIn = 0;
  messagesOut = 0;
  processed = 0;
  failed = 0;
  lastActivity: number | null = null;
  readonly #durations = new DurationSample();
  readonly #handled = new RateWindow(300);
  readonly #failures = new RateWindow(300);

  received(now: number): void {
    this.messagesIn++;
    this.lastActivity = now;
  }

  sent(now: number): void {
    this.messagesOut++;
    this.lastActivity = now;
  }

  /** A request the item finished handling, `ms` after it took it (retries included). */
  handled(ok: boolean, ms: number, now: number): void {
    if (ok) this.processed++;
    else {
      this.failed++;
      this.#failures.record(now);
    }
    this.lastActivity = now;
    this.#durations.record(ms);
    this.#handled.record(now);
  }

  /** Failures in the last `seconds` (health: an item failing now degrades the production). */
  recentFailures(now: number, seconds: number): number {
    return this.#failures.total(now, seconds);
  }

  figures(now: number): ItemFigures {
    return {
      messagesIn: this.messagesIn,
      messagesOut: this.messagesOut,
      processed: this.processed,
      failed: this.failed,
      lastActivity: this.lastActivity,
      meanMs: this.#durations.mean(),
      p95Ms: this.#durations.quantile(0.95),
      rate1m: this.#handled.rate(now, 60),
      rate5m: this.#handled.rate(now, 300),
    };
  }
}

/** Per item of a namespace, kept across runs of its productions. */
export class NamespaceStatistics {
  readonly #items = new Map<string, ItemStatistics>();

  of(item: string): ItemStatistics {
    let statistics = this.#items.get(item);
    if (!statistics) this.#items.set(item, (statistics = new ItemStatistics()));
    return statistics;
  }

  find(item: string): ItemStatistics | undefined {
    return this.#items.get(item);
  }

  entries(): IterableIterator<[string, ItemStatistics]> {
    return this.#items.entries();
  }
}
