/**
 * What every PostgreSQL repository shares: the pool, the Kysely instance over it, the open/closed
 * guard, namespace-id resolution and the translation of driver failures into ConveyorErrors.
 *
 * A lost database is ERR_STORE_UNAVAILABLE (503), not ERR_STORE: the node keeps its API up and says
 * clearly that the database cannot be reached, and callers can tell "retry later" from "bug".
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ConveyorError, isConveyorError } from '../../core/errors.ts';
import type { PgDatabase } from './postgres-schema.ts';

export type Db = Kysely<PgDatabase>;

export class PostgresContext {
  readonly pool: pg.Pool;
  readonly db: Db;
  /** The schema the store lives in: channel names and advisory-lock keys are scoped to it. */
  readonly schema: string;
  readonly #namespaceIds = new Map<string, number>();
  #closed = false;

  constructor(pool: pg.Pool, schema: string) {
    this.pool = pool;
    this.schema = schema;
    this.db = new Kysely<PgDatabase>({ dialect: new PostgresDialect({ pool }) });
  }

  get closed(): boolean {
    return this.#closed;
  }

  assertOpen(): void {
    if (this.#closed) throw closedError();
  }

  markClosed(): void {
    this.#closed = true;
  }

  /** Runs one store operation: refuses it on a closed store and translates driver failures. */
  async run<T>(action: string, work: (db: Db) => Promise<T>): Promise<T> {
    this.assertOpen();
    try {
      return await work(this.db);
    } catch (error) {
      throw toStoreError(action, error);
    }
  }

  /** Runs `work` in one transaction. */
  write<T>(action: string, work: (trx: Db) => Promise<T>): Promise<T> {
    return this.run(action, (db) => db.transaction().execute((trx) => work(trx)));
  }

  /** The namespace's id, or undefined. Namespaces are never deleted, so found ids are cached; misses are not (another node may create it). */
  async namespaceId(name: string): Promise<number | undefined> {
    const cached = this.#namespaceIds.get(name);
    if (cached !== undefined) return cached;
    this.assertOpen();
    const row = await this.db.selectFrom('namespaces').select('id').where('name', '=', name).executeTakeFirst();
    if (row !== undefined) this.#namespaceIds.set(name, row.id);
    return row?.id;
  }

  /** The namespace's id, or ERR_NAMESPACE_UNKNOWN: writes into an unknown namespace are refused. */
  async requireNamespace(name: string): Promise<number> {
    const id = await this.namespaceId(name);
    if (id === undefined) throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace "${name}" does not exist`);
    return id;
  }
}

export function closedError(): ConveyorError {
  return new ConveyorError('ERR_STORE_CLOSED', 'The store is closed');
}

/** SQLSTATE classes and socket errors that mean "the database is gone", not "the query is wrong". */
const connectionErrnos = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300']);

export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrnos.has(code) || unavailableStates.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

export function toStoreError(action: string, error: unknown): ConveyorError {
  if (isConveyorError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isConnectionError(error)) {
    return new ConveyorError('ERR_STORE_UNAVAILABLE', `Could not ${action}: the PostgreSQL database cannot be reached (${message})`, {
      hint: 'Check that PostgreSQL is running and reachable; the node resumes when it is back.',
      cause: error,
    });
  }
  return new ConveyorError('ERR_STORE', `Could not ${action}: ${message}`, { cause: error });
}

/** The store reads a non-positive or non-finite limit as "nothing". */
export function positiveLimit(limit: number): number {
  return Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : 0;
}

/** The database clock in epoch ms, for values compared across nodes (leases, heartbeats). */
export const dbNowMs = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
