/**
 * Messages on SQLite. Inserts and patches go through the group committer; reads and the queue
 * operations (claim, leases) run directly: better-sqlite3 serialises them with the commits.
 */
import type Database from 'better-sqlite3';
import type { MessageHeader, StoredMessage } from '../../core/message.ts';
import { toHeader, toMessage, type HeaderRow, type MessageRow } from '../rows.ts';
import type { CommitOptions, MessageFilter, MessagePatch, MessageRepository, MessageSearch, MessageSearchPage, NewMessage, QueueDepth } from '../store.ts';
import { positiveLimit, type SqliteContext } from './sqlite-context.ts';
import { SqliteMessageSearch } from './sqlite-message-search.ts';
import { firstFreeMessageId, type SqliteWrite } from './sqlite-writes.ts';
import { notCompleted, statusSearchTerm } from '../status-indexes.ts';

const headerColumns = `m.id, m.session_id, m.parent_id, m.corresponding_id, m.kind, m.source, m.target, m.response_required,
  m.status, m.priority, m.description, m.error, m.attempts, m.created_at, m.updated_at, m.lease_owner, m.lease_until`;
const messageColumns = `${headerColumns}, m.classname, b.encoding, b.data, m.trace_parent`;
const withBody = 'FROM messages m JOIN message_body_texts b ON b.message_id = m.id';
/**
 * Few messages are queued or delivered at any time, so the status index finds them at once. Named
 * explicitly because without statistics SQLite may prefer walking the whole namespace.
 */
const byStatus = 'messages m INDEXED BY messages_by_status';
const unfinished = `m.status IN ('queued', 'delivered') AND ${notCompleted('m')}`;

export class SqliteMessages implements MessageRepository {
  readonly #ctx: SqliteContext;
  readonly #submit: (op: SqliteWrite, lazy?: boolean) => Promise<number[]>;
  readonly #searches = new Map<string, Database.Statement>();
  readonly #contentSearch: SqliteMessageSearch;
  readonly #get: Database.Statement<[number, number], MessageRow>;
  readonly #session: Database.Statement<[number, number], HeaderRow>;
  readonly #unfinished: Database.Statement<[number], MessageRow>;
  readonly #claimable: Database.Statement<[number, string, number], { id: number }>;
  readonly #lease: Database.Statement<[string, number, number, number]>;
  readonly #claimed: Database.Statement<[string], MessageRow>;
  readonly #extend: Database.Statement<[number, number, string, string], { id: number }>;
  readonly #release: Database.Statement<[number, number, number]>;
  readonly #depths: Database.Statement<[number], QueueDepth>;
  readonly #count: Database.Statement<[number], { n: number }>;
  #nextId: number;

  constructor(ctx: SqliteContext, submit: (op: SqliteWrite, lazy?: boolean) => Promise<number[]>) {
    this.#ctx = ctx;
    this.#submit = submit;
    const db = ctx.db;
    this.#nextId = firstFreeMessageId(db);
    this.#contentSearch = new SqliteMessageSearch(db);
    this.#get = db.prepare(`SELECT ${messageColumns} ${withBody} WHERE m.ns_id = ? AND m.id = ?`);
    this.#session = db.prepare(`SELECT ${headerColumns} FROM messages m WHERE m.ns_id = ? AND m.session_id = ? ORDER BY m.id`);
    this.#unfinished = db.prepare(`
      SELECT ${messageColumns} FROM ${byStatus} JOIN message_body_texts b ON b.message_id = m.id
      WHERE m.ns_id = ? AND ${unfinished} AND m.kind = 'request' ORDER BY m.id`);
    this.#claimable = db.prepare(`
      SELECT m.id FROM messages m INDEXED BY messages_by_target
      WHERE m.ns_id = ? AND m.status = 'queued' AND ${notCompleted('m')} AND m.kind = 'request' AND m.target IN (SELECT value FROM json_each(?))
      ORDER BY m.priority DESC, m.id LIMIT ?`);
    this.#lease = db.prepare(`
      UPDATE messages SET status = 'delivered', lease_owner = ?, lease_until = ?, updated_at = ?
      WHERE id = ?`);
    this.#claimed = db.prepare(`SELECT ${messageColumns} ${withBody} WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.priority DESC, m.id`);
    this.#extend = db.prepare(`
      UPDATE messages SET lease_until = ?, updated_at = ?
      WHERE id IN (SELECT value FROM json_each(?)) AND status = 'delivered' AND lease_owner = ?
      RETURNING id`);
    this.#release = db.prepare(`
      UPDATE messages INDEXED BY messages_by_status SET status = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE ns_id = ? AND status = 'delivered' AND ${notCompleted()} AND lease_until <= ?`);
    this.#depths = db.prepare(`
      SELECT m.target, SUM(m.status = 'queued') AS queued, SUM(m.status = 'delivered') AS delivered, MIN(m.created_at) AS oldest
      FROM ${byStatus} WHERE m.ns_id = ? AND ${unfinished} GROUP BY m.target ORDER BY m.target`);
    this.#count = db.prepare('SELECT COUNT(*) AS n FROM messages WHERE ns_id = ?');
  }

  async insert(messages: NewMessage[]): Promise<number[]> {
    if (messages.length === 0) {
      this.#ctx.assertOpen();
      return [];
    }
    const { ids, committed } = this.insertEager(messages);
    await committed;
    return ids;
  }

  insertEager(messages: NewMessage[], options: CommitOptions = {}): { ids: number[]; committed: Promise<void> } {
    this.#ctx.assertOpen();
    const namespaceIds = messages.map((message) => this.#ctx.requireNamespace(message.namespace));
    const ids = messages.map(() => this.#nextId++);
    return { ids, committed: this.#submit({ kind: 'insert-messages', namespaceIds, ids, messages }, options.lazy).then(() => undefined) };
  }

  async update(patches: MessagePatch[], options: CommitOptions = {}): Promise<void> {
    this.#ctx.assertOpen();
    if (patches.length === 0) return;
    await this.#submit({ kind: 'patch-messages', patches }, options.lazy);
  }

  get(namespace: string, id: number): Promise<StoredMessage | null> {
    return this.#ctx.run('read a message', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const row = nsId === undefined ? undefined : this.#get.get(nsId, id);
      return row === undefined ? null : toMessage(namespace, row);
    });
  }

  search(namespace: string, filter: MessageFilter): Promise<MessageHeader[]> {
    return this.#ctx.run('search messages', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(filter.limit);
      if (nsId === undefined || limit === 0) return [];
      const { sql, params } = searchQuery(nsId, filter, limit);
      let statement = this.#searches.get(sql);
      if (statement === undefined) {
        statement = this.#ctx.db.prepare(sql);
        this.#searches.set(sql, statement);
      }
      return (statement.all(...params) as HeaderRow[]).map((row) => toHeader(namespace, row));
    });
  }

  find(namespace: string, search: MessageSearch): Promise<MessageSearchPage> {
    return this.#ctx.run('search messages by content', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(search.limit);
      if (nsId === undefined || limit === 0) return { hits: [], next: null, scanned: 0 };
      return this.#contentSearch.find(namespace, nsId, search, limit);
    });
  }

  session(namespace: string, sessionId: number): Promise<MessageHeader[]> {
    return this.#ctx.run('read a session', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#session.all(nsId, sessionId).map((row) => toHeader(namespace, row));
    });
  }

  unfinished(namespace: string): Promise<StoredMessage[]> {
    return this.#ctx.run('read unfinished messages', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#unfinished.all(nsId).map((row) => toMessage(namespace, row));
    });
  }

  claim(namespace: string, targets: string[], owner: string, limit: number, leaseMs: number): Promise<StoredMessage[]> {
    return this.#ctx.write('claim messages', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const max = positiveLimit(limit);
      if (nsId === undefined || max === 0 || targets.length === 0) return [];
      const now = Date.now();
      const ids = this.#claimable.all(nsId, JSON.stringify(targets), max).map((row) => row.id);
      for (const id of ids) this.#lease.run(owner, now + leaseMs, now, id);
      return ids.length === 0 ? [] : this.#claimed.all(JSON.stringify(ids)).map((row) => toMessage(namespace, row));
    });
  }

  extendLeases(ids: number[], owner: string, leaseMs: number): Promise<number[]> {
    return this.#ctx.write('extend leases', () => {
      if (ids.length === 0) return [];
      const now = Date.now();
      const extended = new Set(this.#extend.all(now + leaseMs, now, JSON.stringify(ids), owner).map((row) => row.id));
      return ids.filter((id) => extended.has(id));
    });
  }

  releaseExpired(namespace: string, now: number): Promise<number> {
    return this.#ctx.write('release expired leases', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? 0 : this.#release.run(Date.now(), nsId, now).changes;
    });
  }

  queueDepths(namespace: string): Promise<QueueDepth[]> {
    return this.#ctx.run('read queue depths', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#depths.all(nsId);
    });
  }

  count(namespace: string): Promise<number> {
    return this.#ctx.run('count messages', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? 0 : this.#count.get(nsId)!.n;
    });
  }
}

/** Builds the search; the SQL text depends only on which filters are set, so statements are cached by it. */
function searchQuery(nsId: number, filter: MessageFilter, limit: number): { sql: string; params: unknown[] } {
  const where = ['m.ns_id = ?'];
  const params: unknown[] = [nsId];
  const add = (condition: string, value: unknown): void => {
    if (value === undefined) return;
    where.push(condition);
    params.push(value);
  };
  add('m.created_at >= ?', filter.from);
  add('m.created_at <= ?', filter.to);
  add('m.source = ?', filter.source);
  add('m.target = ?', filter.target);
  add('m.classname = ?', filter.classname);
  add('m.status = ?', filter.status);
  const statusTerm = statusSearchTerm(filter.status, 'm');
  if (statusTerm !== null) where.push(statusTerm);
  add('m.kind = ?', filter.kind);
  add('m.session_id = ?', filter.sessionId);
  add('m.id < ?', filter.beforeId);
  // instr: an exact, case-sensitive substring with no wildcard characters to escape.
  const text = filter.text === undefined || filter.text === '' ? undefined : filter.text;
  // Checked row by row while walking newest first, so a search stops as soon as it has `limit` hits.
  add('EXISTS (SELECT 1 FROM message_body_texts b WHERE b.message_id = m.id AND instr(b.data, ?) > 0)', text);
  params.push(limit);
  return { sql: `SELECT ${headerColumns} FROM messages m WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT ?`, params };
}
