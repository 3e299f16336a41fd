/**
 * The scale-out store: several Conveyor servers (nodes) share one PostgreSQL database.
 *
 * Every node keeps a small pool; hot writes go through group commit like on SQLite (one
 * statement per flush, see postgres-writes.ts), in one committer, so that they commit in the order
 * they were submitted (message-writes.ts) — queues are claimed with SKIP LOCKED and leases, and `cluster` carries the node registry, named leases and LISTEN/NOTIFY.
 *
 * `schema` puts every table in one PostgreSQL schema (created when missing) through the
 * connections' `search_path`: tests isolate themselves that way, and two clusters may share a server.
 */
import pg from 'pg';
import { ConveyorError } from '../../core/errors.ts';
import { GroupCommitter } from '../group-commit.ts';
import { migrate } from '../migrator.ts';
import type { Store, StoreCapabilities } from '../store.ts';
import { postgresMigrationHost, postgresMigrations } from './migrations.ts';
import type { MessageWrites } from './message-writes.ts';
import { PgNotifier } from './notifier.ts';
import { PostgresClasses } from './postgres-classes.ts';
import { PostgresCluster } from './postgres-cluster.ts';
import { PostgresContext, toStoreError } from './postgres-context.ts';
import { PostgresLog } from './postgres-log.ts';
import { PostgresAlerts } from './postgres-alerts.ts';
import { PostgresControls } from './postgres-controls.ts';
import { PostgresLookups } from './postgres-lookups.ts';
import { PostgresSettingsMigrations } from './postgres-settings-migrations.ts';
import { PostgresMessages } from './postgres-messages.ts';
import { PostgresNamespaces } from './postgres-namespaces.ts';
import { PostgresProductions } from './postgres-productions.ts';
import { PostgresRetention } from './postgres-retention.ts';
import { PostgresSchemas } from './postgres-schemas.ts';
import { PostgresVersionedSources } from './postgres-versioned-sources.ts';
import { isWritesOwnFailure, postgresBatchWriter, writeWeight, hotPathPlannerSettings, type PgWrite } from './postgres-writes.ts';

export interface PostgresStoreOptions {
  /** The PostgreSQL schema holding the tables (created when missing). Default: the connection's current schema (usually `public`). */
  schema?: string;
  /** Most connections this node opens for queries (default 10), plus one for LISTEN. */
  poolSize?: number;
  /** Most rows per group commit (default 500). */
  maxBatch?: number;
  /**
   * `true` (default): hot writes are grouped into one transaction per flush. `false`: each write
   * is its own transaction, run concurrently on the pool (PostgreSQL then groups the WAL flushes of
   * concurrent commits itself). Kept for measurement: see bench/postgres-store.ts.
   */
  groupCommit?: boolean;
  /** How long to wait for a connection before failing with ERR_STORE_UNAVAILABLE (default 10000 ms). */
  connectTimeoutMs?: number;
  /** Background connection failures (idle clients dropped, LISTEN connection lost). Default: ignored; queries report their own failures. */
  onError?: (error: Error) => void;
}

const schemaName = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Opens (creating and migrating as needed) the store at `url`. A `schema` query parameter in the
 * URL (`postgres://…/db?schema=conveyor`) selects the schema when `options.schema` is not given,
 * so one configuration string (`CONVEYOR_STORE`) says everything.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const { url: plainUrl, schema: urlSchema } = splitSchemaParameter(url);
  const schema = options.schema ?? urlSchema;
  if (schema !== undefined && !schemaName.test(schema)) {
    throw new ConveyorError('ERR_CONFIG', `Invalid PostgreSQL schema name "${schema}"`, {
      hint: 'Use 1 to 63 letters, digits or "_", starting with a letter or "_".',
    });
  }
  return open(plainUrl, schema === undefined ? options : { ...options, schema });
}

async function open(url: string, options: PostgresStoreOptions): Promise<Store> {
  const connection = connectionConfig(url, options);
  const pool = new pg.Pool({ ...connection, max: Math.max(1, options.poolSize ?? 10) });
  // A pooled connection that dies emits 'error'; unhandled, that would end the process. Idle ones
  // reach the pool's listener. Checked-out ones (Kysely, unlike pool.query, adds no listener while it
  // holds a client) get a silent one: their running query fails with the same error, and the pool
  // drops the broken client when it comes back.
  pool.on('error', (error) => options.onError?.(error));
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    const schema = options.schema ?? (await currentSchema(pool));
    await migrate(postgresMigrationHost(pool, schema, options.schema !== undefined), postgresMigrations, `PostgreSQL store (schema ${schema})`);
    const store = new PostgresStore(pool, hotPathPool(connection, options), connection, schema, options);
    // insertEager hands out ids at once: the first block is drawn before anybody asks.
    await store.messages.drawFirstIds().catch(async (error: unknown) => {
      await store.close().catch(() => undefined);
      throw error;
    });
    return store;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw toStoreError(`open the PostgreSQL store at ${redactPassword(url)}`, error);
  }
}

/**
 * The connections of the hot path, apart from the pool of everything else: the group commits (the
 * store's committer flushes one batch at a time) and the queue operations (claims, leases,
 * ids drawn ahead). Their statements reach rows by key or through the queue's small partial indexes,
 * and their planner keeps one generic plan and never scans a table whole (hotPathPlannerSettings says
 * why).
 */
function hotPathPool(connection: pg.ClientConfig, options: PostgresStoreOptions): pg.Pool {
  const pool = new pg.Pool({
    ...connection,
    options: connection.options === undefined ? hotPathPlannerSettings : `${connection.options} ${hotPathPlannerSettings}`,
    max: 4,
  });
  // As for the main pool (open): a batch's failed query reports a dead connection; nothing else must.
  pool.on('error', (error) => options.onError?.(error));
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

function splitSchemaParameter(url: string): { url: string; schema: string | undefined } {
  const query = url.indexOf('?');
  if (query < 0) return { url, schema: undefined };
  const params = new URLSearchParams(url.slice(query + 1));
  const schema = params.get('schema') ?? undefined;
  if (schema === undefined) return { url, schema };
  params.delete('schema');
  const rest = params.toString();
  return { url: url.slice(0, query) + (rest === '' ? '' : `?${rest}`), schema };
}

function connectionConfig(url: string, options: PostgresStoreOptions): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: 'conveyor',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    keepAlive: true,
    // -c search_path: every connection of this store, pooled or listening, sees only its schema.
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
  };
}

/** int8 (ids, epoch-ms times, counts) as JS numbers: they stay far below 2^53. */
function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  if (oid === pg.types.builtins.INT8 && format !== 'binary') return (value: string) => Number(value);
  return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
}

async function currentSchema(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = rows[0]?.schema;
  if (schema === null || schema === undefined) {
    throw new ConveyorError('ERR_CONFIG', 'The PostgreSQL connection has no current schema (search_path names no existing schema)', {
      hint: 'Create the schema, fix search_path, or pass the schema option.',
    });
  }
  return schema;
}

/** Store URLs carry credentials; error messages must not. */
function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}

class PostgresStore implements Store {
  readonly capabilities: StoreCapabilities = { multiNode: true, notify: true };
  readonly namespaces: PostgresNamespaces;
  readonly productions: PostgresProductions;
  readonly classes: PostgresClasses;
  readonly messages: PostgresMessages;
  readonly log: PostgresLog;
  readonly schemas: PostgresSchemas;
  readonly transforms: PostgresVersionedSources;
  readonly rules: PostgresVersionedSources;
  readonly lookups: PostgresLookups;
  readonly alerts: PostgresAlerts;
  readonly controls: PostgresControls;
  readonly settingsMigrations: PostgresSettingsMigrations;
  readonly retention: PostgresRetention;
  readonly cluster: PostgresCluster;
  readonly #ctx: PostgresContext;
  readonly #hot: pg.Pool;
  readonly #notifier: PgNotifier;
  readonly #committers: Array<GroupCommitter<PgWrite, number[]>>;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closing: Promise<void> | null = null;

  constructor(pool: pg.Pool, hot: pg.Pool, connection: pg.ClientConfig, schema: string, options: PostgresStoreOptions) {
    const ctx = new PostgresContext(pool, schema);
    this.#ctx = ctx;
    this.#hot = hot;
    const commitBatch = postgresBatchWriter(hot, schema, (name) => ctx.requireNamespace(name));
    let writes: MessageWrites;
    if (options.groupCommit === false) {
      this.#committers = [];
      writes = { lane: null, submit: (op) => this.#track(commitBatch([op]).then((results) => results[0]!)) };
    } else {
      const committer = new GroupCommitter<PgWrite, number[]>({
        commit: commitBatch,
        maxBatch: options.maxBatch ?? 500,
        weight: writeWeight,
        retryAlone: isWritesOwnFailure,
      });
      this.#committers = [committer];
      writes = { lane: committer, submit: (op, lane, lazy) => (lane ?? committer).submit(op, lazy) };
    }
    this.#notifier = new PgNotifier({
      connection,
      pool,
      scope: schema,
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
    this.namespaces = new PostgresNamespaces(ctx);
    this.productions = new PostgresProductions(ctx);
    this.classes = new PostgresClasses(ctx);
    this.messages = new PostgresMessages(ctx, hot, writes);
    this.log = new PostgresLog(ctx, (op) => writes.submit(op, writes.lane));
    this.schemas = new PostgresSchemas(ctx);
    this.transforms = new PostgresVersionedSources(ctx, { table: 'transform_versions', noun: 'transform' });
    this.rules = new PostgresVersionedSources(ctx, { table: 'rule_versions', noun: 'rule' });
    this.lookups = new PostgresLookups(ctx);
    this.alerts = new PostgresAlerts(ctx);
    this.controls = new PostgresControls(ctx);
    this.settingsMigrations = new PostgresSettingsMigrations(ctx);
    this.retention = new PostgresRetention(ctx);
    this.cluster = new PostgresCluster(ctx, this.#notifier);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await Promise.all(this.#committers.map((committer) => committer.close()));
    await Promise.allSettled([...this.#inFlight]);
    this.#ctx.markClosed();
    await this.#notifier.close();
    await this.#hot.end();
    await this.#ctx.db.destroy();
  }

  /** Without group commit, close still waits for every accepted write. */
  #track<T>(write: Promise<T>): Promise<T> {
    if (this.#ctx.closed) return Promise.reject(new ConveyorError('ERR_STORE_CLOSED', 'The store is closed; the write was not accepted'));
    this.#inFlight.add(write);
    void write.finally(() => this.#inFlight.delete(write)).catch(() => undefined);
    return write;
  }
}
