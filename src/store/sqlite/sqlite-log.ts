/** The event log on SQLite: appends are group-committed, ids come from one AUTOINCREMENT sequence. */
import type Database from 'better-sqlite3';
import type { LogEntry, NewLogEntry } from '../../core/log.ts';
import { toLogEntry, type LogRow } from '../rows.ts';
import type { LogQuery, LogRepository } from '../store.ts';
import { positiveLimit, type SqliteContext } from './sqlite-context.ts';
import type { SqliteWrite } from './sqlite-writes.ts';

const columns = 'id, type, config_name, job, message_id, session_id, source_class, source_method, text, time_logged';

export class SqliteLog implements LogRepository {
  readonly #ctx: SqliteContext;
  readonly #submit: (op: SqliteWrite) => Promise<number[]>;
  readonly #searches = new Map<string, Database.Statement>();
  readonly #top: Database.Statement<[number, number], LogRow>;
  readonly #since: Database.Statement<[number, number, number], LogRow>;

  constructor(ctx: SqliteContext, submit: (op: SqliteWrite) => Promise<number[]>) {
    this.#ctx = ctx;
    this.#submit = submit;
    this.#top = ctx.db.prepare(`SELECT ${columns} FROM log_entries WHERE ns_id = ? ORDER BY id DESC LIMIT ?`);
    this.#since = ctx.db.prepare(`SELECT ${columns} FROM log_entries WHERE ns_id = ? AND id > ? ORDER BY id LIMIT ?`);
  }

  async append(namespace: string, entries: NewLogEntry[]): Promise<number[]> {
    const namespaceId = this.#ctx.requireNamespace(namespace);
    if (entries.length === 0) return [];
    return this.#submit({ kind: 'append-log', namespaceId, entries });
  }

  top(namespace: string, top: number): Promise<LogEntry[]> {
    return this.#ctx.run('read the event log', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(top);
      return nsId === undefined || limit === 0 ? [] : this.#top.all(nsId, limit).map((row) => toLogEntry(namespace, row));
    });
  }

  since(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]> {
    return this.#ctx.run('read the event log', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const max = positiveLimit(limit);
      return nsId === undefined || max === 0 ? [] : this.#since.all(nsId, sinceId, max).map((row) => toLogEntry(namespace, row));
    });
  }

  search(namespace: string, query: LogQuery): Promise<LogEntry[]> {
    return this.#ctx.run('search the event log', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(query.limit);
      if (nsId === undefined || limit === 0) return [];
      const where = ['ns_id = ?'];
      const params: unknown[] = [nsId];
      const add = (condition: string, value: unknown): void => {
        if (value === undefined) return;
        where.push(condition);
        params.push(value);
      };
      add('type = ?', query.type);
      add('config_name = ?', query.configName);
      add('session_id = ?', query.sessionId);
      add('id < ?', query.beforeId);
      add('instr(text, ?) > 0', query.text === '' ? undefined : query.text);
      params.push(limit);
      const sql = `SELECT ${columns} FROM log_entries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`;
      let statement = this.#searches.get(sql);
      if (statement === undefined) {
        statement = this.#ctx.db.prepare(sql);
        this.#searches.set(sql, statement);
      }
      return (statement.all(...params) as LogRow[]).map((row) => toLogEntry(namespace, row));
    });
  }
}
