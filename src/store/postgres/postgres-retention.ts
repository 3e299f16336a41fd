/**
 * Retention on PostgreSQL: policies, purges in bounded batches and space reclaim.
 *
 * A batch is ONE statement: it picks the eligible rows (locking them, skipping rows another
 * transaction holds) and deletes headers and bodies together, so a lost connection or a kill -9
 * leaves every message with its body or neither. The DELETE checks the status again, so a message
 * that changed meanwhile stays. Deleted rows become dead tuples; `reclaim` runs a plain VACUUM
 * (no exclusive lock, writes go on) so their space is reused; autovacuum would do it later anyway.
 * The files shrink only with VACUUM FULL or pg_repack, which lock or copy the table: an operator's
 * choice, never done here (docs/operations.md).
 */
import type { PurgeBatch, PurgeBatchOptions, RetentionPolicy, RetentionRepository, StoreUsage } from '../store.ts';
import { bodyBytes, eligibleMessage, headerBytes, logEntryBytes } from '../retention-rules.ts';
import type { PostgresContext } from './postgres-context.ts';

interface PolicyRow {
  message_days: number | null;
  log_days: number | null;
  max_store_bytes: number | null;
}

interface BatchRow {
  taken: number;
  deleted: number;
  bodies: number;
  bytes: number;
  last_at: number | null;
  last_id: number | null;
}

const purgedTables = ['messages', 'message_bodies', 'log_entries'];

export class PostgresRetention implements RetentionRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  getPolicy(namespace: string): Promise<RetentionPolicy | null> {
    return this.#ctx.run('read the retention policy', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const { rows } = await this.#ctx.pool.query<PolicyRow>('SELECT message_days, log_days, max_store_bytes FROM retention_policies WHERE ns_id = $1', [nsId]);
      return rows[0] === undefined ? null : toPolicy(rows[0]);
    });
  }

  putPolicy(namespace: string, policy: RetentionPolicy | null): Promise<void> {
    return this.#ctx.run('store the retention policy', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      if (policy === null) {
        await this.#ctx.pool.query('DELETE FROM retention_policies WHERE ns_id = $1', [nsId]);
        return;
      }
      await this.#ctx.pool.query(
        `INSERT INTO retention_policies (ns_id, message_days, log_days, max_store_bytes, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (ns_id) DO UPDATE SET message_days = excluded.message_days, log_days = excluded.log_days,
           max_store_bytes = excluded.max_store_bytes, updated_at = excluded.updated_at`,
        [nsId, policy.messageDays, policy.logDays, policy.maxStoreBytes, Date.now()],
      );
    });
  }

  policies(): Promise<Array<{ namespace: string; policy: RetentionPolicy }>> {
    return this.#ctx.run('read the retention policies', async () => {
      const { rows } = await this.#ctx.pool.query<PolicyRow & { name: string }>(
        'SELECT n.name, p.message_days, p.log_days, p.max_store_bytes FROM retention_policies p JOIN namespaces n ON n.id = p.ns_id ORDER BY n.name COLLATE "C"',
      );
      return rows.map((row) => ({ namespace: row.name, policy: toPolicy(row) }));
    });
  }

  purgeMessages(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch> {
    const pick = `SELECT m.id, m.created_at AS at, ${headerBytes('m', 'postgres')} + coalesce((SELECT ${bodyBytes('b', 'postgres')} FROM message_bodies b WHERE b.message_id = m.id), 0) AS bytes,
        EXISTS (SELECT 1 FROM message_bodies b WHERE b.message_id = m.id) AS has_body
      FROM messages m
      WHERE m.ns_id = $1 AND m.created_at < $2 AND (m.created_at, m.id) > ($3, $4) AND ${eligibleMessage('m', 'postgres')}
      ORDER BY m.created_at, m.id LIMIT $5`;
    const measure = `WITH victims AS (${pick})
      SELECT count(*)::int AS taken, count(*)::int AS deleted, count(*) FILTER (WHERE has_body)::int AS bodies, coalesce(sum(bytes), 0)::bigint AS bytes,
        (SELECT at FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_at, (SELECT id FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_id
      FROM victims`;
    const remove = `WITH victims AS (${pick} FOR UPDATE OF m SKIP LOCKED),
      headers AS (DELETE FROM messages d USING victims v WHERE d.id = v.id AND ${eligibleMessage('d', 'postgres')} RETURNING d.id),
      bodies AS (DELETE FROM message_bodies b USING headers h WHERE b.message_id = h.id RETURNING b.message_id)
      SELECT (SELECT count(*) FROM victims)::int AS taken, (SELECT count(*) FROM headers)::int AS deleted, (SELECT count(*) FROM bodies)::int AS bodies,
        (SELECT coalesce(sum(v.bytes), 0) FROM victims v JOIN headers h ON h.id = v.id)::bigint AS bytes,
        (SELECT at FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_at, (SELECT id FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_id`;
    return this.#batch('purge messages', namespace, before, options, options.dryRun ? measure : remove);
  }

  purgeLog(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch> {
    const pick = `SELECT l.id, l.time_logged AS at, ${logEntryBytes('l', 'postgres')} AS bytes FROM log_entries l
      WHERE l.ns_id = $1 AND l.time_logged < $2 AND (l.time_logged, l.id) > ($3, $4)
      ORDER BY l.time_logged, l.id LIMIT $5`;
    const tail = `(SELECT at FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_at, (SELECT id FROM victims ORDER BY at DESC, id DESC LIMIT 1) AS last_id`;
    const measure = `WITH victims AS (${pick})
      SELECT count(*)::int AS taken, count(*)::int AS deleted, 0 AS bodies, coalesce(sum(bytes), 0)::bigint AS bytes, ${tail} FROM victims`;
    const remove = `WITH victims AS (${pick} FOR UPDATE OF l SKIP LOCKED),
      gone AS (DELETE FROM log_entries d USING victims v WHERE d.id = v.id RETURNING d.id)
      SELECT (SELECT count(*) FROM victims)::int AS taken, (SELECT count(*) FROM gone)::int AS deleted, 0 AS bodies,
        (SELECT coalesce(sum(bytes), 0) FROM victims)::bigint AS bytes, ${tail}`;
    return this.#batch('purge the event log', namespace, before, options, options.dryRun ? measure : remove);
  }

  #batch(action: string, namespace: string, before: number, options: PurgeBatchOptions, sql: string): Promise<PurgeBatch> {
    return this.#ctx.run(action, async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return { count: 0, bodies: 0, bytes: 0, next: null };
      const limit = Math.max(1, Math.floor(options.limit));
      const after = options.after ?? { at: Number.MIN_SAFE_INTEGER, id: 0 };
      const { rows } = await this.#ctx.pool.query<BatchRow>(sql, [nsId, before, after.at, after.id, limit]);
      const row = rows[0];
      if (row === undefined) return { count: 0, bodies: 0, bytes: 0, next: null };
      const next = row.taken < limit || row.last_at === null || row.last_id === null ? null : { at: Number(row.last_at), id: Number(row.last_id) };
      return { count: row.deleted, bodies: row.bodies, bytes: Number(row.bytes), next };
    });
  }

  usage(namespace: string): Promise<StoreUsage> {
    return this.#ctx.run('measure the store', async () => {
      const size = await this.#ctx.pool.query<{ bytes: number | null }>(
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [this.#ctx.schema],
      );
      // Live rows × their average width, from the statistics ANALYZE keeps (the files do not shrink after a purge).
      const live = await this.#ctx.pool.query<{ bytes: number | null }>(
        `SELECT sum(c.reltuples * w.width)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN (SELECT tablename, sum(avg_width) AS width FROM pg_stats WHERE schemaname = $1 GROUP BY tablename) w ON w.tablename = c.relname
         WHERE n.nspname = $1 AND c.relkind = 'r' AND c.reltuples > 0`,
        [this.#ctx.schema],
      );
      const base = { storeBytes: Number(size.rows[0]?.bytes ?? 0), dataBytes: Number(live.rows[0]?.bytes ?? 0), freeBytes: 0, reclaim: 'vacuum' as const };
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return { ...base, messages: 0, oldestMessage: null, logEntries: 0, oldestLogEntry: null };
      const [messages, log] = await Promise.all([
        this.#ctx.pool.query<{ n: number; oldest: number | null }>('SELECT count(*)::bigint AS n, min(created_at) AS oldest FROM messages WHERE ns_id = $1', [
          nsId,
        ]),
        this.#ctx.pool.query<{ n: number; oldest: number | null }>(
          'SELECT count(*)::bigint AS n, min(time_logged) AS oldest FROM log_entries WHERE ns_id = $1',
          [nsId],
        ),
      ]);
      return {
        ...base,
        messages: Number(messages.rows[0]?.n ?? 0),
        oldestMessage: messages.rows[0]?.oldest ?? null,
        logEntries: Number(log.rows[0]?.n ?? 0),
        oldestLogEntry: log.rows[0]?.oldest ?? null,
      };
    });
  }

  reclaim(): Promise<{ bytes: number; more: boolean }> {
    return this.#ctx.run('vacuum the message and log tables', async () => {
      const sizeSql = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2)`;
      const before = await this.#ctx.pool.query<{ bytes: number }>(sizeSql, [this.#ctx.schema, purgedTables]);
      // VACUUM cannot run in a transaction block; a pooled query is its own statement. Schema-qualified: the pool's search_path may be the default.
      const client = await this.#ctx.pool.connect();
      try {
        const names = purgedTables.map((table) => `${client.escapeIdentifier(this.#ctx.schema)}.${table}`).join(', ');
        await client.query(`VACUUM (ANALYZE) ${names}`);
      } finally {
        client.release();
      }
      const after = await this.#ctx.pool.query<{ bytes: number }>(sizeSql, [this.#ctx.schema, purgedTables]);
      return { bytes: Math.max(0, Number(before.rows[0]?.bytes ?? 0) - Number(after.rows[0]?.bytes ?? 0)), more: false };
    });
  }
}

function toPolicy(row: PolicyRow): RetentionPolicy {
  return { messageDays: row.message_days, logDays: row.log_days, maxStoreBytes: row.max_store_bytes === null ? null : Number(row.max_store_bytes) };
}
