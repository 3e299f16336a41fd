/**
 * What every SQLite repository shares: the connection, the open/closed guard, namespace-id
 * resolution and the error translation. better-sqlite3 is synchronous, so every multi-statement
 * write runs inside one synchronous `db.transaction`, and nothing can interleave with it.
 */
import type Database from 'better-sqlite3';
import { ConveyorError, isConveyorError } from '../../core/errors.ts';

type Db = Database.Database;

export class SqliteContext {
  readonly #db: Db;
  readonly #namespaceIds = new Map<string, number>();
  readonly #lookupNamespace: Database.Statement<[string], { id: number }>;
  #closed = false;
  /** Settles when the writes held back (`holdWritesUntil`) may go on; null while none are. */
  #held: Promise<unknown> | null = null;

  constructor(db: Db) {
    this.#db = db;
    this.#lookupNamespace = db.prepare('SELECT id FROM namespaces WHERE name = ?');
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Throws ERR_STORE_CLOSED once the store was closed. */
  assertOpen(): void {
    if (this.#closed) throw closedError();
  }

  markClosed(): void {
    this.#closed = true;
  }

  /** The connection, or ERR_STORE_CLOSED once the store was closed. */
  get db(): Db {
    if (this.#closed) throw closedError();
    return this.#db;
  }

  /**
   * Runs one store operation: refuses it on a closed store and turns driver failures into ERR_STORE
   * (ConveyorErrors pass through). Synchronous work, but callers get a promise like any driver's.
   */
  async run<T>(action: string, work: (db: Db) => T): Promise<T> {
    return this.runSync(action, work);
  }

  runSync<T>(action: string, work: (db: Db) => T): T {
    const db = this.db;
    try {
      return work(db);
    } catch (error) {
      throw toStoreError(action, error);
    }
  }

  /** Runs `work` in one write transaction taken at once (no lock upgrade half way). */
  write<T>(action: string, work: (db: Db) => T): Promise<T> {
    const held = this.#held;
    if (held !== null) return held.then(() => this.write(action, work));
    return this.run(action, (db) => db.transaction(() => work(db)).immediate());
  }

  /**
   * Holds the writes asked for until `done` settles, then runs them in the order asked; returns
   * `done`. For the WAL's catch-up (background-checkpointer.ts), which needs the connection to
   * commit nothing while the worker copies the WAL.
   */
  holdWritesUntil<T>(done: Promise<T>): Promise<T> {
    const held: Promise<unknown> = done.then(
      () => this.#release(held),
      () => this.#release(held),
    );
    this.#held = held;
    return done;
  }

  #release(held: Promise<unknown>): void {
    if (this.#held === held) this.#held = null;
  }

  /** The namespace's id, or undefined when it does not exist. Namespaces are never deleted, so ids are cached. */
  namespaceId(name: string): number | undefined {
    const cached = this.#namespaceIds.get(name);
    if (cached !== undefined) return cached;
    if (this.#closed) throw closedError();
    const row = this.#lookupNamespace.get(name);
    if (row !== undefined) this.#namespaceIds.set(name, row.id);
    return row?.id;
  }

  /** The namespace's id, or ERR_NAMESPACE_UNKNOWN: writes into an unknown namespace are refused. */
  requireNamespace(name: string): number {
    const id = this.namespaceId(name);
    if (id === undefined) throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace "${name}" does not exist`);
    return id;
  }
}

export function closedError(): ConveyorError {
  return new ConveyorError('ERR_STORE_CLOSED', 'The store is closed');
}

export function toStoreError(action: string, error: unknown): ConveyorError {
  if (isConveyorError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ConveyorError('ERR_STORE', `Could not ${action}: ${message}`, { cause: error });
}

/**
 * Failures of the database itself rather than of one write: retrying a failed batch op by op would
 * only meet them again (each time after the busy timeout, for a lock).
 */
const environmentalCodes = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|READONLY|CORRUPT|NOTADB|CANTOPEN|NOMEM|PROTOCOL|PERM|AUTH)/;

export function isDatabaseFailure(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' && environmentalCodes.test(code);
}

/** SQLite reads a negative LIMIT as "no limit"; the store reads it as "nothing". */
export function positiveLimit(limit: number): number {
  return Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : 0;
}
