/**
 * Group commit: callers submit writes one at a time and each gets a promise, while the driver
 * applies many of them in ONE transaction. A commit (fsync) costs far more than a row, so batching
 * is what lets a durable store keep up with the engine.
 *
 * Scheduling: the first op of an idle committer schedules a flush on `setImmediate`, so everything
 * submitted during the current tick shares one commit. While a flush runs (asynchronous drivers),
 * new ops accumulate and go together in the next flush, scheduled the moment the previous one
 * finished (one `setImmediate` later, so a synchronous driver lets I/O in between transactions).
 * A flush never takes more than `maxBatch` weight; when that much is already pending the next
 * flush starts at once instead of waiting a tick.
 *
 * Lazy ops: an op whose writer is told nothing until a later op commits (a request handed to its
 * target while nobody waits for its own commit) does not schedule a flush: it rides in the next
 * one, which a later op's writer needs anyway (the reply's response), so a synchronous hop costs one
 * commit, not two. A timer (`lazyFlushMs`) flushes it when no other op comes.
 *
 * Failure isolation: if a batch's transaction fails, each of its ops is retried alone, so one bad
 * write (a constraint violation) rejects only its own caller. The transaction was rolled back, so
 * retrying cannot apply an op twice. Failures of the database itself (disk full, locked, I/O) would
 * only fail again op by op, slowly: `retryAlone` tells them apart and they reject the whole batch.
 */
import { ConveyorError } from '../core/errors.ts';

export interface GroupCommitOptions<Op, Result> {
  /** Applies every op of `batch` in one transaction and returns one result per op, in order. */
  commit: (batch: readonly Op[]) => Promise<Result[]> | Result[];
  /** Most weight one transaction carries (default 500). */
  maxBatch?: number;
  /** The weight of an op, e.g. its row count (default 1). */
  weight?: (op: Op) => number;
  /** Whether a failed batch is worth retrying op by op (default: always). */
  retryAlone?: (error: unknown) => boolean;
  /** Longest wait of a lazy op for another op to flush it (default 20 ms). */
  lazyFlushMs?: number;
}

interface PendingOp<Op, Result> {
  op: Op;
  weight: number;
  lazy: boolean;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter<Op, Result> {
  readonly #commit: (batch: readonly Op[]) => Promise<Result[]> | Result[];
  readonly #maxBatch: number;
  readonly #weight: (op: Op) => number;
  readonly #retryAlone: (error: unknown) => boolean;
  readonly #lazyFlushMs: number;
  #lazyTimer: NodeJS.Timeout | null = null;
  /** Pending ops that are not lazy: a flush is due only while there is one (or the batch is full). */
  #urgent = 0;
  #pending: PendingOp<Op, Result>[] = [];
  #pendingWeight = 0;
  #scheduled = false;
  #flushing: Promise<void> | null = null;
  #closed = false;

  constructor(options: GroupCommitOptions<Op, Result>) {
    this.#commit = options.commit;
    this.#maxBatch = Math.max(1, options.maxBatch ?? 500);
    this.#weight = options.weight ?? (() => 1);
    this.#retryAlone = options.retryAlone ?? (() => true);
    this.#lazyFlushMs = options.lazyFlushMs ?? 20;
  }

  /** Ops waiting for a flush (not counting the one being committed). */
  get pending(): number {
    return this.#pending.length;
  }

  /**
   * Resolves with the op's result once its transaction committed. A `lazy` op waits for the next
   * op's flush (at most `lazyFlushMs`) instead of scheduling its own.
   */
  submit(op: Op, lazy = false): Promise<Result> {
    if (this.#closed) return Promise.reject(new ConveyorError('ERR_STORE_CLOSED', 'The store is closed; the write was not accepted'));
    return new Promise<Result>((resolve, reject) => {
      const weight = this.#weight(op);
      this.#pending.push({ op, weight, lazy, resolve, reject });
      this.#pendingWeight += weight;
      if (!lazy) this.#urgent++;
      this.#schedule();
    });
  }

  /** Refuses new ops and waits until every accepted op has been committed (or has failed). */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing !== null || this.#pending.length > 0) {
      if (this.#flushing === null) this.#startFlush();
      await this.#flushing;
    }
  }

  #armLazyTimer(): void {
    if (this.#lazyTimer !== null || this.#scheduled || this.#flushing !== null) return;
    this.#lazyTimer = setTimeout(() => {
      this.#lazyTimer = null;
      if (this.#flushing === null && this.#pending.length > 0) this.#startFlush();
    }, this.#lazyFlushMs);
    this.#lazyTimer.unref();
  }

  #schedule(): void {
    if (this.#flushing !== null) return; // the running flush schedules the next one when it ends
    if (this.#pendingWeight >= this.#maxBatch) {
      this.#startFlush();
      return;
    }
    if (this.#urgent === 0 && !this.#closed) {
      this.#armLazyTimer();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#flushing === null && this.#pending.length > 0) this.#startFlush();
    });
  }

  #startFlush(): void {
    if (this.#lazyTimer !== null) clearTimeout(this.#lazyTimer);
    this.#lazyTimer = null;
    const batch = this.#takeBatch();
    this.#flushing = this.#flush(batch).finally(() => {
      this.#flushing = null;
      if (this.#pending.length > 0) this.#schedule();
    });
  }

  #takeBatch(): PendingOp<Op, Result>[] {
    let weight = 0;
    let count = 0;
    while (count < this.#pending.length && (count === 0 || weight + this.#pending[count]!.weight <= this.#maxBatch)) {
      weight += this.#pending[count]!.weight;
      count += 1;
    }
    const batch = this.#pending.splice(0, count);
    this.#pendingWeight -= weight;
    for (const entry of batch) if (!entry.lazy) this.#urgent--;
    return batch;
  }

  async #flush(batch: PendingOp<Op, Result>[]): Promise<void> {
    let results: Result[];
    try {
      results = await this.#commit(batch.map((entry) => entry.op));
    } catch (error) {
      if (batch.length === 1 || !this.#retryAlone(error)) for (const entry of batch) entry.reject(error);
      else for (const entry of batch) await this.#commitAlone(entry);
      return;
    }
    if (results.length !== batch.length) {
      // Committed, but the driver broke its contract: nobody can be told which id is theirs.
      const error = new ConveyorError('ERR_INTERNAL', `Group commit returned ${results.length} results for ${batch.length} writes`);
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]!));
  }

  async #commitAlone(entry: PendingOp<Op, Result>): Promise<void> {
    try {
      const [result] = await this.#commit([entry.op]);
      entry.resolve(result as Result);
    } catch (error) {
      entry.reject(error);
    }
  }
}
