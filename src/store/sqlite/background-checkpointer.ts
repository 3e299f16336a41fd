/**
 * Checkpoints the write-ahead log from a worker thread with its own connection, so that the main
 * connection never runs one. SQLite's automatic checkpoint runs inside the commit that crosses
 * 1,000 WAL pages: it copies those pages into the database file and fsyncs both files, holding the
 * event loop still for several milliseconds (the tail of every latency figure). A PASSIVE
 * checkpoint from another connection takes no writer lock: commits go on meanwhile. The main
 * connection turns its automatic checkpoint off (`wal_autocheckpoint = 0`) and calls `committed()`
 * after each group commit; the worker checkpoints when enough pages have been written since its last.
 *
 * A PASSIVE checkpoint alone never lets the WAL start over while commits keep coming: SQLite
 * rewinds the WAL only when a write transaction begins with every frame already copied, and the
 * frames committed while the worker copied are not. Under steady traffic the WAL grew without end
 * (324 MB after 4,500 hops against a 2.3 MB database, every lookup in it slower). So when a
 * checkpoint of the worker finds the WAL past `restartFrames`, `restartDue()` says so once, and the
 * store holds its next group commit, and its other writes, until `catchUp()` has had the worker copy
 * the frames written meanwhile: with no commit in between, that checkpoint leaves every frame copied,
 * and the held transaction begins on a fully copied WAL, which SQLite rewinds. The event loop never
 * stands still for it (the main connection ran that last checkpoint itself before: 5–15 ms on the
 * loop, with two fsyncs, every 64 MB — the tail of the sync hop's latency); the held commit waits
 * about 7 ms here (the copy and two fsyncs), while later writes gather for the commit after it. When a write slipped in
 * anyway (a statement outside the store's two write paths) the catch-up says it is incomplete, and the
 * store copies the few frames left on its own connection before the held commit, as it always did.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** WAL pages after which a checkpoint is due: SQLite's own default threshold. */
const pagesPerCheckpoint = 1000;
/** WAL frames (64 MB of 4 KB pages) past which the WAL is made to rewind, by default. */
const defaultRestartFrames = 16_384;
/** Longest hold of a commit for the worker's catch-up: past it the commit goes on, and the rewind waits for another time. */
const catchUpMs = 1_000;

// CommonJS on purpose: an eval'd worker runs it without a loader (no tsx, no ESM resolution).
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  let outcome = { log: 0, checkpointed: -1 };
  try {
    outcome = db.pragma('wal_checkpoint(PASSIVE)')[0];
  } catch (error) {
    // A busy database or a failed checkpoint leaves the pages in the WAL: the next one copies them.
  }
  parentPort.postMessage({ log: outcome.log, checkpointed: outcome.checkpointed });
});
`;

export class BackgroundCheckpointer {
  /** Started with the first checkpoint due: an idle store costs no thread. */
  #worker: Worker | null = null;
  #pagesSince = 0;
  #running = false;
  #restartDue = false;
  /** Settles the pending `catchUp()`, if any: true when the worker copied every frame. */
  #caughtUp: ((complete: boolean) => void) | null = null;
  #closed: Promise<void> | null = null;

  constructor(
    private readonly path: string,
    private readonly restartFrames = defaultRestartFrames,
  ) {}

  /** A group commit wrote about `pages` pages to the WAL. */
  committed(pages: number): void {
    this.#pagesSince += pages;
    this.#maybeStart();
  }

  /** True once after a checkpoint of the worker found the WAL past its bound: the caller should `catchUp()` before its next commit. */
  restartDue(): boolean {
    if (!this.#restartDue || this.#running || this.#closed !== null) return false;
    this.#restartDue = false;
    return true;
  }

  /**
   * Has the worker copy every frame the WAL holds. Resolves true when it did, false when frames were
   * left (a write slipped in), after `catchUpMs`, or when no worker runs. The caller writes nothing
   * meanwhile, so that the copy is complete and its next transaction rewinds the WAL.
   */
  catchUp(): Promise<boolean> {
    const worker = this.#worker;
    if (worker === null || this.#running || this.#closed !== null) return Promise.resolve(false);
    this.#running = true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), catchUpMs);
      this.#caughtUp = (complete) => {
        clearTimeout(timer);
        resolve(complete);
      };
      worker.postMessage('checkpoint');
    });
  }

  /** Ends the worker's connection; the store's own close then checkpoints what is left. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      const worker = this.#worker;
      if (worker === null) return resolve(); // never started, or already gone
      // Held until it is gone, or a closing process could exit under it.
      worker.ref();
      worker.once('exit', () => resolve());
      worker.postMessage('close');
    });
    return this.#closed;
  }

  #maybeStart(): void {
    if (this.#running || this.#closed !== null || this.#pagesSince < pagesPerCheckpoint) return;
    this.#pagesSince = 0;
    this.#running = true;
    (this.#worker ??= this.#startWorker()).postMessage('checkpoint');
  }

  #startWorker(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // Plain CommonJS: no loader flags of the main thread (tsx) to start with.
    const worker = new Worker(workerSource, { eval: true, execArgv: [], workerData: { path: this.path, driver } });
    worker.unref();
    worker.on('message', ({ log, checkpointed }: { log: number; checkpointed: number }) => {
      // The next group commit starts the next checkpoint, after the rewind it may owe (a checkpoint
      // started here at once would keep `restartDue` false under steady load).
      this.#running = false;
      if (this.#caughtUp !== null) this.#settleCatchUp(checkpointed === log);
      else if (log >= this.restartFrames) this.#restartDue = true;
    });
    // A worker that cannot run leaves checkpoints undone until a new one starts with the next
    // checkpoint due; a catch-up waiting for it goes on (the store then copies the rest itself).
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.#worker === worker) this.#worker = null;
      this.#running = false;
      this.#settleCatchUp(false);
    });
    return worker;
  }

  #settleCatchUp(complete: boolean): void {
    const caughtUp = this.#caughtUp;
    this.#caughtUp = null;
    caughtUp?.(complete);
  }
}
