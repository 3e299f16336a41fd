/**
 * The event log on PostgreSQL: appends are group-committed (see postgres-writes.ts for why ids
 * increase in commit order within a namespace, even with several nodes appending).
 */
import type { LogEntry, NewLogEntry } from '../../core/log.ts';
import { toLogEntry, type LogRow } from '../rows.ts';
import type { LogQuery, LogRepository } from '../store.ts';
import { positiveLimit, type PostgresContext } from './postgres-context.ts';
import type { PgWrite } from './postgres-writes.ts';

const columns = ['id', 'type', 'config_name', 'job', 'message_id', 'session_id', 'source_class', 'source_method', 'text', 'time_logged'] as const;
const columnSql = columns.join(', ');

export class PostgresLog implements LogRepository {
  readonly #ctx: PostgresContext;
  readonly #submit: (op: PgWrite) => Promise<number[]>;

  constructor(ctx: PostgresContext, submit: (op: PgWrite) => Promise<number[]>) {
    this.#ctx = ctx;
    this.#submit = submit;
  }

  /** Submitted synchronously (the namespace is resolved at commit), so ids follow call order. */
  async append(namespace: string, entries: NewLogEntry[]): Promise<number[]> {
    this.#ctx.assertOpen();
    if (entries.length === 0) {
      await this.#ctx.run('append to the event log', () => this.#ctx.requireNamespace(namespace));
      return [];
    }
    return this.#submit({ kind: 'append-log', namespace, entries });
  }

  top(namespace: string, top: number): Promise<LogEntry[]> {
    return this.#ctx.run('read the event log', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(top);
      if (nsId === undefined || limit === 0) return [];
      const { rows } = await this.#ctx.pool.query<LogRow>({
        name: 'conveyor-log-top',
        text: `SELECT ${columnSql} FROM log_entries WHERE ns_id = $1 ORDER BY id DESC LIMIT $2`,
        values: [nsId, limit],
      });
      return rows.map((row) => toLogEntry(namespace, row));
    });
  }

  since(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]> {
    return this.#ctx.run('read the event log', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const max = positiveLimit(limit);
      if (nsId === undefined || max === 0) return [];
      const { rows } = await this.#ctx.pool.query<LogRow>({
        name: 'conveyor-log-since',
        text: `SELECT ${columnSql} FROM log_entries WHERE ns_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
        values: [nsId, sinceId, max],
      });
      return rows.map((row) => toLogEntry(namespace, row));
    });
  }

  search(namespace: string, query: LogQuery): Promise<LogEntry[]> {
    return this.#ctx.run('search the event log', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(query.limit);
      if (nsId === undefined || limit === 0) return [];
      let select = db.selectFrom('log_entries').select(columns).where('ns_id', '=', nsId);
      if (query.type !== undefined) select = select.where('type', '=', query.type);
      if (query.configName !== undefined) select = select.where('config_name', '=', query.configName);
      if (query.sessionId !== undefined) select = select.where('session_id', '=', query.sessionId);
      if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
      const text = query.text;
      if (text !== undefined && text !== '') select = select.where((eb) => eb(eb.fn('strpos', ['text', eb.val(text)]), '>', 0));
      const rows = await select.orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => toLogEntry(namespace, row));
    });
  }
}
