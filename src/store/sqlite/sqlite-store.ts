/**
 * The embedded store: one SQLite file per home, opened by one server process.
 *
 * Durability: WAL journal. `full` (default) syncs the WAL on every commit, so what a write resolved
 * survives power loss. `normal` syncs only at checkpoints: it survives a crash or kill -9 of the
 * process (the WAL is in the OS page cache) but the last commits may be lost on power loss or an
 * OS crash. Group commit makes either cheap per message.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConveyorError } from '../../core/errors.ts';
import { bodyBytes } from '../../core/message-bytes.ts';
import { GroupCommitter } from '../group-commit.ts';
import { migrate } from '../migrator.ts';
import type { Store, StoreCapabilities } from '../store.ts';
import { sqliteMigrationHost, sqliteMigrations } from './migrations.ts';
import { SqliteClasses } from './sqlite-classes.ts';
import { isDatabaseFailure, SqliteContext, toStoreError } from './sqlite-context.ts';
import { SqliteLog } from './sqlite-log.ts';
import { SqliteAlerts } from './sqlite-alerts.ts';
import { SqliteControls } from './sqlite-controls.ts';
import { SqliteLookups } from './sqlite-lookups.ts';
import { SqliteMessages } from './sqlite-messages.ts';
import { SqliteNamespaces } from './sqlite-namespaces.ts';
import { SqliteProductions } from './sqlite-productions.ts';
import { SqliteRetention } from './sqlite-retention.ts';
import { SqliteSchemas } from './sqlite-schemas.ts';
import { SqliteSettingsMigrations } from './sqlite-settings-migrations.ts';
import { SqliteVersionedSources } from './sqlite-versioned-sources.ts';
import { sqliteBatchWriter, writeWeight, type SqliteWrite } from './sqlite-writes.ts';
import { WalSync, WalSyncError } from './wal-sync.ts';
import { BackgroundCheckpointer } from './background-checkpointer.ts';
import { withoutOwnFsync } from './without-own-fsync.ts';

export type Durability = 'full' | 'normal';

export interface SqliteStoreOptions {
  /** The database file; its folder is created when missing. */
  path: string;
  durability?: Durability;
  /** How long a statement waits for another connection's lock before failing (default 5000). */
  busyTimeoutMs?: number;
  /** Most rows per group commit (default 500). */
  maxBatch?: number;
  /** WAL frames past which the WAL is made to rewind (default 16,384: 64 MB of 4 KB pages). */
  walRestartFrames?: number;
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const db = openDatabase(options);
  try {
    await migrate(sqliteMigrationHost(db), sqliteMigrations, `SQLite store at ${options.path}`);
    // Refreshes planner statistics where they are missing or stale (cheap: bounded by analysis_limit).
    db.pragma('optimize = 0x10002');
    // A database without a WAL file (in memory) keeps SQLite's own syncs and checkpoints.
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') return new SqliteStore(db, options.maxBatch ?? 500, null, null);
    // Checkpoints run on a worker thread (background-checkpointer.ts), never inside a commit here.
    db.pragma('wal_autocheckpoint = 0');
    const walSync = (options.durability ?? 'full') === 'full' ? new WalSync(`${options.path}-wal`) : null;
    return new SqliteStore(db, options.maxBatch ?? 500, walSync, new BackgroundCheckpointer(options.path, options.walRestartFrames));
  } catch (error) {
    db.close();
    throw toStoreError(`open the SQLite store at ${options.path}`, error);
  }
}

/** Opens the file with the store's connection settings (exported for tests of those settings). */
export function openDatabase(options: SqliteStoreOptions): Database.Database {
  const durability = options.durability ?? 'full';
  if (durability !== 'full' && durability !== 'normal') {
    throw new ConveyorError('ERR_CONFIG', `Unknown store durability "${String(durability)}"`, { hint: 'Use "full" or "normal".' });
  }
  let db: Database.Database | undefined;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    db = new Database(options.path);
    // A new file only (the mode is fixed once the first table exists): pages freed by a purge can then
    // go back to the file system (retention.reclaim). Older files keep reusing them (docs/operations.md).
    if (Number(db.pragma('page_count', { simple: true })) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db?.close();
    throw toStoreError(`open the SQLite store at ${options.path}`, error);
  }
}

class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities = { multiNode: false, notify: false };
  readonly namespaces: SqliteNamespaces;
  readonly productions: SqliteProductions;
  readonly classes: SqliteClasses;
  readonly messages: SqliteMessages;
  readonly log: SqliteLog;
  readonly schemas: SqliteSchemas;
  readonly transforms: SqliteVersionedSources;
  readonly rules: SqliteVersionedSources;
  readonly lookups: SqliteLookups;
  readonly alerts: SqliteAlerts;
  readonly controls: SqliteControls;
  readonly settingsMigrations: SqliteSettingsMigrations;
  readonly retention: SqliteRetention;
  readonly #db: Database.Database;
  readonly #ctx: SqliteContext;
  readonly #committer: GroupCommitter<SqliteWrite, number[]>;
  readonly #walSync: WalSync | null;
  readonly #checkpointer: BackgroundCheckpointer | null;
  #closing: Promise<void> | null = null;

  /** `walSync`: durability `full`, group commits synced off the event loop (wal-sync.ts). */
  constructor(db: Database.Database, maxBatch: number, walSync: WalSync | null, checkpointer: BackgroundCheckpointer | null) {
    this.#db = db;
    this.#walSync = walSync;
    this.#checkpointer = checkpointer;
    const ctx = new SqliteContext(db);
    this.#ctx = ctx;
    const commitBatch = sqliteBatchWriter(db);
    const relaxed = withoutOwnFsync(db);
    // The connection stays at synchronous = FULL for every other write (definitions, users…);
    // only the group commit, whose writers wait for the WAL sync, writes without its own fsync.
    const write = (batch: readonly SqliteWrite[]) => {
      const ids = ctx.runSync('write to the store', () => (walSync ? relaxed(() => commitBatch(batch)) : commitBatch(batch)));
      checkpointer?.committed(walPagesOf(batch));
      return ids;
    };
    const commitDurably = walSync
      ? async (batch: readonly SqliteWrite[]) => {
          const ids = write(batch);
          await walSync.sync();
          return ids;
        }
      : write;
    // The WAL has grown past its bound: this batch (and every other write) waits while the worker
    // copies the rest, then its transaction rewinds the WAL (background-checkpointer.ts).
    const commit = (batch: readonly SqliteWrite[]) => {
      if (!checkpointer?.restartDue()) return commitDurably(batch);
      return ctx.holdWritesUntil(checkpointer.catchUp()).then((complete) => {
        if (!complete) copyRestOfWal(db);
        return commitDurably(batch);
      });
    };
    this.#committer = new GroupCommitter<SqliteWrite, number[]>({
      commit,
      maxBatch,
      weight: writeWeight,
      // A failed WAL sync comes after the rows were written: applying them again op by op would duplicate them.
      retryAlone: (error) => !isDatabaseFailure(error) && !(error instanceof WalSyncError),
    });
    const submit = (op: SqliteWrite, lazy?: boolean): Promise<number[]> => this.#committer.submit(op, lazy);
    this.namespaces = new SqliteNamespaces(ctx);
    this.productions = new SqliteProductions(ctx);
    this.classes = new SqliteClasses(ctx);
    this.messages = new SqliteMessages(ctx, submit);
    this.log = new SqliteLog(ctx, submit);
    this.schemas = new SqliteSchemas(ctx);
    this.transforms = new SqliteVersionedSources(ctx, { table: 'transform_versions', noun: 'transform' });
    this.rules = new SqliteVersionedSources(ctx, { table: 'rule_versions', noun: 'rule' });
    this.lookups = new SqliteLookups(ctx);
    this.alerts = new SqliteAlerts(ctx);
    this.controls = new SqliteControls(ctx);
    this.settingsMigrations = new SqliteSettingsMigrations(ctx, { classes: this.classes, schemas: this.schemas, productions: this.productions });
    this.retention = new SqliteRetention(
      ctx,
      (pages) => checkpointer?.committed(pages),
      () => walSync?.sync() ?? Promise.resolve(),
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await this.#committer.close();
    await this.#checkpointer?.close();
    this.#walSync?.close();
    this.#ctx.markClosed();
    this.#db.pragma('optimize');
    this.#db.close();
  }
}

/**
 * A write the catch-up could not hold slipped in while the worker copied: the few frames it left
 * are copied here, so the next transaction still begins on a fully copied WAL and rewinds it. A
 * failure leaves them for the next time the WAL passes its bound; the commit does not depend on it.
 */
function copyRestOfWal(db: Database.Database): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Left for the next time the WAL passes its bound.
  }
}

/** About how many WAL pages a batch writes (a row and its index entries; a body's overflow pages). */
function walPagesOf(batch: readonly SqliteWrite[]): number {
  let pages = 0;
  for (const op of batch) {
    if (op.kind === 'insert-messages') for (const message of op.messages) pages += 4 + Math.ceil((bodyBytes(message.body) ?? message.body.data).length / 4000);
    else pages += 2 * writeWeight(op);
  }
  return pages;
}
