/**
 * Checkpoints the write-ahead log from a worker thread with its own connection, so that the main
 * connection never runs one. SQLite's automatic checkpoint runs inside the commit that crosses
 * 1,000 WAL pages: it copies those pages into the database file and fsyncs both files, holding the
 * event loop still for several milliseconds (the tail of every latency figure). A PASSIVE
 * checkpoint from another connection takes no writer lock: commits go on meanwhile. The main
 * connection turns its automatic checkpoint off (`wal_autocheckpoint = 0`) and calls `committed()`
 * after each group commit; the worker checkpoints when enough pages have been written since its last.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** WAL pages after which a checkpoint is due: SQLite's own default threshold. */
const pagesPerCheckpoint = 1000;

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
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // A busy database or a failed checkpoint leaves the pages in the WAL: the next one copies them.
  }
  parentPort.postMessage('done');
});
`;

export class BackgroundCheckpointer {
  /** Started with the first checkpoint due: an idle store costs no thread. */
  #worker: Worker | null = null;
  #pagesSince = 0;
  #running = false;
  #closed: Promise<void> | null = null;

  constructor(private readonly path: string) {}

  /** A group commit wrote about `pages` pages to the WAL. */
  committed(pages: number): void {
    this.#pagesSince += pages;
    this.#maybeStart();
  }

  /** Ends the worker's connection; the store's own close then checkpoints what is left. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      const worker = this.#worker;
      if (worker === null) return resolve();
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
    worker.on('message', () => {
      this.#running = false;
      this.#maybeStart();
    });
    // A worker that cannot run leaves checkpoints undone: the WAL grows until the store closes (which checkpoints).
    worker.on('error', () => undefined);
    return worker;
  }
}
