/**
 * Retention on SQLite: policies, purges in bounded batches and space reclaim.
 *
 * A batch is one synchronous transaction on the store's connection, so nothing interleaves with it
 * and a kill -9 leaves every message with its body or neither; the caller yields between batches
 * (src/engine/retention/paced-purge.ts). Batches walk (created_at, id) through the index
 * (ns_id, created_at), so a batch reads only rows older than its bound and after its position.
 *
 * Freed pages go to SQLite's freelist and are reused by new rows. A database created with
 * auto_vacuum = INCREMENTAL (every store created since the retention migration, see
 * sqlite-store.ts) also gives them back to the file system, a bounded number per `reclaim` call.
 */
import type Database from 'better-sqlite3';
import type { PurgeBatch, PurgeBatchOptions, PurgePosition, RetentionPolicy, RetentionRepository, StoreUsage } from '../store.ts';
import { eligibleMessage, headerBytes, logEntryBytes, bodyBytes } from '../retention-rules.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { withoutOwnFsync, type WithoutOwnFsync } from './without-own-fsync.ts';

interface PolicyRow {
  message_days: number | null;
  log_days: number | null;
  max_store_bytes: number | null;
}

interface VictimRow {
  id: number;
  at: number;
  bytes: number;
  body_bytes: number | null;
}

/** Tells the background checkpointer how many WAL pages a purge wrote (it counts only group commits otherwise). */
export type WalPagesWritten = (pages: number) => void;

/** Resolves once the WAL written so far is on the disk (the store's off-loop WAL sync; at once without one). */
export type WalFlush = () => Promise<void>;

export class SqliteRetention implements RetentionRepository {
  readonly #ctx: SqliteContext;
  readonly #walPagesWritten: WalPagesWritten;
  readonly #flush: WalFlush;
  readonly #getPolicy: Database.Statement<[number], PolicyRow>;
  readonly #messageVictims: Database.Statement<[number, number, number, number, number], VictimRow>;
  readonly #logVictims: Database.Statement<[number, number, number, number, number], VictimRow>;
  readonly #keepSharedBodies: Database.Statement<[string, string]>;
  readonly #deleteBodies: Database.Statement<[string]>;
  readonly #deleteMessages: Database.Statement<[string]>;
  readonly #deleteLog: Database.Statement<[string]>;
  readonly #withoutOwnFsync: WithoutOwnFsync;

  constructor(ctx: SqliteContext, walPagesWritten: WalPagesWritten, flush: WalFlush) {
    this.#ctx = ctx;
    this.#walPagesWritten = walPagesWritten;
    this.#flush = flush;
    const db = ctx.db;
    this.#withoutOwnFsync = withoutOwnFsync(db);
    this.#getPolicy = db.prepare('SELECT message_days, log_days, max_store_bytes FROM retention_policies WHERE ns_id = ?');
    // INDEXED BY: a fresh database has no statistics, and the walk must stay inside (ns_id, created_at).
    this.#messageVictims = db.prepare(`
      SELECT m.id, m.created_at AS at, ${headerBytes('m')} AS bytes,
        (SELECT ${bodyBytes('b')} FROM message_bodies b WHERE b.message_id = m.id) AS body_bytes
      FROM messages m INDEXED BY messages_by_created
      WHERE m.ns_id = ? AND m.created_at < ? AND (m.created_at, m.id) > (?, ?) AND ${eligibleMessage('m')}
      ORDER BY m.created_at, m.id LIMIT ?`);
    this.#logVictims = db.prepare(`
      SELECT l.id, l.time_logged AS at, ${logEntryBytes('l')} AS bytes, NULL AS body_bytes
      FROM log_entries l INDEXED BY log_by_time
      WHERE l.ns_id = ? AND l.time_logged < ? AND (l.time_logged, l.id) > (?, ?)
      ORDER BY l.time_logged, l.id LIMIT ?`);
    // A body row about to go that other messages share (shared-bodies.ts): its text is copied into
    // those that stay first. Rarely any: a body is shared by messages of one session, purged together
    // unless the purge's bound falls between them.
    this.#keepSharedBodies = db.prepare(`
      UPDATE message_bodies SET data = (SELECT h.data FROM message_bodies h WHERE h.message_id = message_bodies.data_of), data_of = NULL
      WHERE data_of IN (SELECT value FROM json_each(?)) AND message_id NOT IN (SELECT value FROM json_each(?))`);
    this.#deleteBodies = db.prepare('DELETE FROM message_bodies WHERE message_id IN (SELECT value FROM json_each(?))');
    // The status is checked again in the DELETE itself: only a finished message ever goes.
    this.#deleteMessages = db.prepare(`DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND ${eligibleMessage('messages')}`);
    this.#deleteLog = db.prepare('DELETE FROM log_entries WHERE id IN (SELECT value FROM json_each(?))');
  }

  getPolicy(namespace: string): Promise<RetentionPolicy | null> {
    return this.#ctx.run('read the retention policy', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const row = nsId === undefined ? undefined : this.#getPolicy.get(nsId);
      return row === undefined ? null : toPolicy(row);
    });
  }

  putPolicy(namespace: string, policy: RetentionPolicy | null): Promise<void> {
    return this.#ctx.write('store the retention policy', (db) => {
      const nsId = this.#ctx.requireNamespace(namespace);
      if (policy === null) {
        db.prepare('DELETE FROM retention_policies WHERE ns_id = ?').run(nsId);
        return;
      }
      db.prepare(
        `INSERT INTO retention_policies (ns_id, message_days, log_days, max_store_bytes, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (ns_id) DO UPDATE SET message_days = excluded.message_days, log_days = excluded.log_days,
           max_store_bytes = excluded.max_store_bytes, updated_at = excluded.updated_at`,
      ).run(nsId, policy.messageDays, policy.logDays, policy.maxStoreBytes, Date.now());
    });
  }

  policies(): Promise<Array<{ namespace: string; policy: RetentionPolicy }>> {
    return this.#ctx.run('read the retention policies', (db) => {
      const rows = db
        .prepare('SELECT n.name, p.message_days, p.log_days, p.max_store_bytes FROM retention_policies p JOIN namespaces n ON n.id = p.ns_id ORDER BY n.name')
        .all() as Array<PolicyRow & { name: string }>;
      return rows.map((row) => ({ namespace: row.name, policy: toPolicy(row) }));
    });
  }

  purgeMessages(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch> {
    return this.#purge('purge messages', namespace, before, options, this.#messageVictims, (ids) => {
      this.#keepSharedBodies.run(ids, ids);
      this.#deleteBodies.run(ids);
      return this.#deleteMessages.run(ids).changes;
    });
  }

  purgeLog(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch> {
    return this.#purge('purge the event log', namespace, before, options, this.#logVictims, (ids) => this.#deleteLog.run(ids).changes);
  }

  #purge(
    action: string,
    namespace: string,
    before: number,
    options: PurgeBatchOptions,
    victims: Database.Statement<[number, number, number, number, number], VictimRow>,
    remove: (ids: string) => number,
  ): Promise<PurgeBatch> {
    const batch = (db: Database.Database): PurgeBatch => {
      const nsId = this.#ctx.namespaceId(namespace);
      const limit = Math.max(1, Math.floor(options.limit));
      if (nsId === undefined) return { count: 0, bodies: 0, bytes: 0, next: null };
      const after = options.after ?? { at: Number.MIN_SAFE_INTEGER, id: 0 };
      const rows = victims.all(nsId, before, after.at, after.id, limit);
      const last = rows.at(-1);
      const next: PurgePosition | null = rows.length < limit || last === undefined ? null : { at: last.at, id: last.id };
      let bytes = 0;
      let bodies = 0;
      for (const row of rows) {
        bytes += row.bytes + (row.body_bytes ?? 0);
        if (row.body_bytes !== null) bodies += 1;
      }
      if (options.dryRun || rows.length === 0) return { count: rows.length, bodies, bytes, next };
      // Without its own fsync: a purge lost to a power cut is only done again, and the next group commit's
      // WAL sync makes it durable anyway. An fsync here would hold the event loop and compete with the hot path's.
      const count = this.#withoutOwnFsync(() => db.transaction(() => remove(JSON.stringify(rows.map((row) => row.id)))).immediate());
      // Rows are removed oldest first, so they sit side by side: about their bytes in table pages, as many again in index pages.
      this.#walPagesWritten(2 * Math.ceil(bytes / 4096) + 2);
      return { count, bodies, bytes, next };
    };
    // Reading the victims and deleting them: one synchronous stretch, nothing interleaves. Then the batch
    // waits for its WAL frames to reach the disk (off the event loop): the caller's pacing then counts
    // the purge's I/O too, not only its CPU, so the hot path's own syncs do not pay for it.
    return this.#ctx.run(action, batch).then(async (result) => {
      if (!options.dryRun && result.count > 0) await this.#flush();
      return result;
    });
  }

  usage(namespace: string): Promise<StoreUsage> {
    return this.#ctx.run('measure the store', (db) => {
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      const pages = Number(db.pragma('page_count', { simple: true }));
      const free = Number(db.pragma('freelist_count', { simple: true }));
      const incremental = Number(db.pragma('auto_vacuum', { simple: true })) === 2;
      const nsId = this.#ctx.namespaceId(namespace);
      const base = {
        storeBytes: (pages - free) * pageSize,
        dataBytes: (pages - free) * pageSize,
        freeBytes: free * pageSize,
        reclaim: incremental ? ('incremental' as const) : ('reuse' as const),
      };
      if (nsId === undefined) return { ...base, messages: 0, oldestMessage: null, logEntries: 0, oldestLogEntry: null };
      const messages = db.prepare('SELECT count(*) AS n, min(created_at) AS oldest FROM messages INDEXED BY messages_by_created WHERE ns_id = ?').get(nsId) as {
        n: number;
        oldest: number | null;
      };
      const log = db.prepare('SELECT count(*) AS n, min(time_logged) AS oldest FROM log_entries INDEXED BY log_by_time WHERE ns_id = ?').get(nsId) as {
        n: number;
        oldest: number | null;
      };
      return { ...base, messages: messages.n, oldestMessage: messages.oldest, logEntries: log.n, oldestLogEntry: log.oldest };
    });
  }

  reclaim(maxPages: number): Promise<{ bytes: number; more: boolean }> {
    return this.#ctx.run('reclaim free space', (db) => {
      if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return { bytes: 0, more: false };
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      const before = Number(db.pragma('page_count', { simple: true }));
      // exec, not a prepared statement: each step of incremental_vacuum frees one page, exec runs them all.
      db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(maxPages))})`);
      const after = Number(db.pragma('page_count', { simple: true }));
      this.#walPagesWritten(before - after);
      return { bytes: (before - after) * pageSize, more: Number(db.pragma('freelist_count', { simple: true })) > 0 };
    });
  }
}

function toPolicy(row: PolicyRow): RetentionPolicy {
  return { messageDays: row.message_days, logDays: row.log_days, maxStoreBytes: row.max_store_bytes };
}
