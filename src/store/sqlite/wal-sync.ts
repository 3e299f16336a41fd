/**
 * Makes the SQLite write-ahead log durable without stopping the event loop. A batch is committed
 * with `synchronous = NORMAL` (its frames are written to the WAL, no fsync), then `sync()` runs
 * `fdatasync` of the WAL file on libuv's thread pool, and the batch's writers are told only once it
 * returns: the same guarantee as `synchronous = FULL` (the WAL synced after every commit), but the
 * loop keeps reading Python replies and filling the next batch while the disk works, where FULL
 * held the whole process still for every fsync. fsync acts on the file, not the descriptor, so
 * syncing our own read-only descriptor of the WAL covers the frames SQLite wrote through its own.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';
import { ConveyorError } from '../../core/errors.ts';

interface Round {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newRound(): Round {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** The WAL could not be synced: the batch's rows are written but not known to be on the disk. */
export class WalSyncError extends ConveyorError {}

export class WalSync {
  #fd: number | null = null;
  /** The fdatasync under way; what was written after it started waits for `#next`. */
  #running: Round | null = null;
  #next: Round | null = null;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything written to the WAL before this call is on the disk. */
  sync(): Promise<void> {
    if (this.#running === null) return this.#start(newRound());
    this.#next ??= newRound();
    return this.#next.promise;
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #start(round: Round): Promise<void> {
    this.#running = round;
    let fd: number;
    try {
      // Opened at the first sync: SQLite creates the WAL with the first write.
      fd = this.#fd ??= openSync(this.walPath, 'r');
    } catch (error) {
      this.#finish(round, error);
      return round.promise;
    }
    fdatasync(fd, (error) => this.#finish(round, error));
    return round.promise;
  }

  #finish(round: Round, error: unknown): void {
    if (error) {
      round.reject(new WalSyncError('ERR_STORE', `Could not sync the store's write-ahead log to the disk: ${(error as Error).message}`, { cause: error }));
    } else round.resolve();
    this.#running = null;
    const next = this.#next;
    this.#next = null;
    if (next !== null) void this.#start(next);
  }
}
