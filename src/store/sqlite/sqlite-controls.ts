/**
 * Queue and message controls on SQLite (ControlRepository in ../controls.ts). Each operation is one
 * write transaction; the status changes are conditional, so a message that moved on meanwhile (taken,
 * finished) is left as it is and reported as not changed.
 */
import type Database from 'better-sqlite3';
import type { MessageHeader } from '../../core/message.ts';
import {
  toLinks,
  toQueueSuspension,
  type ControlRepository,
  type MessageLinks,
  type QueueSuspension,
  type QueueSuspensionRow,
  type ResendLink,
  type ResendLinkRow,
  type SuspendedQuery,
} from '../controls.ts';
import { toHeader, type HeaderRow } from '../rows.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { notCompleted } from '../status-indexes.ts';

const headerColumns = `id, session_id, parent_id, corresponding_id, kind, source, target, response_required,
  status, priority, description, error, attempts, created_at, updated_at, lease_owner, lease_until`;
/** The SQL of src/core/message-suspension.ts. */
const suspended = `kind = 'request' AND status = 'error' AND ${notCompleted()} AND response_required = 0`;

export class SqliteControls implements ControlRepository {
  readonly #ctx: SqliteContext;
  readonly #suspend: Database.Statement<[number, string, string, number]>;
  readonly #resume: Database.Statement<[number, string]>;
  readonly #queues: Database.Statement<[number], QueueSuspensionRow>;
  readonly #abort: Database.Statement<[string, number, number, number]>;
  readonly #discard: Database.Statement<[number, number, number]>;
  readonly #link: Database.Statement<[number, number, number, string, number, string, number]>;
  readonly #resolve: Database.Statement<[number, number, number]>;
  readonly #links: Database.Statement<[number, number, number], ResendLinkRow>;
  readonly #counts: Database.Statement<[number], { target: string; count: number }>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#suspend = db.prepare('INSERT INTO queue_suspensions (ns_id, item, suspended_by, suspended_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.#resume = db.prepare('DELETE FROM queue_suspensions WHERE ns_id = ? AND item = ?');
    this.#queues = db.prepare('SELECT item, suspended_by, suspended_at FROM queue_suspensions WHERE ns_id = ? ORDER BY item');
    this.#abort = db.prepare(`
      UPDATE messages SET status = 'discarded', error = ?, updated_at = ?
      WHERE ns_id = ? AND id = ? AND kind = 'request' AND status = 'queued' AND lease_owner IS NULL`);
    this.#discard = db.prepare(`UPDATE messages SET status = 'discarded', updated_at = ? WHERE ns_id = ? AND id = ? AND kind = 'request' AND status = 'error'`);
    this.#link = db.prepare('INSERT INTO message_resends (resend_id, ns_id, original_id, target, edited, by_user, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.#resolve = db.prepare(`UPDATE messages SET status = 'discarded', updated_at = ? WHERE ns_id = ? AND id = ? AND ${suspended}`);
    this.#links = db.prepare(`
      SELECT resend_id, original_id, target, edited, by_user, created_at FROM message_resends
      WHERE ns_id = ? AND (resend_id = ? OR original_id = ?) ORDER BY created_at, resend_id`);
    this.#counts = db.prepare(`
      SELECT target, COUNT(*) AS count FROM messages INDEXED BY messages_by_status
      WHERE ns_id = ? AND ${suspended} GROUP BY target ORDER BY target`);
  }

  suspendQueue(namespace: string, suspension: QueueSuspension): Promise<boolean> {
    return this.#ctx.write('suspend a queue', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      return this.#suspend.run(nsId, suspension.item, suspension.suspendedBy, suspension.suspendedAt).changes > 0;
    });
  }

  resumeQueue(namespace: string, item: string): Promise<boolean> {
    return this.#ctx.write('resume a queue', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      return this.#resume.run(nsId, item).changes > 0;
    });
  }

  suspendedQueues(namespace: string): Promise<QueueSuspension[]> {
    return this.#ctx.run('read suspended queues', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#queues.all(nsId).map(toQueueSuspension);
    });
  }

  abort(namespace: string, ids: number[], reason: string): Promise<number[]> {
    return this.#ctx.write('abort messages', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const now = Date.now();
      return ids.filter((id) => this.#abort.run(reason, now, nsId, id).changes > 0);
    });
  }

  discard(namespace: string, ids: number[]): Promise<number[]> {
    return this.#ctx.write('discard messages', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const now = Date.now();
      return ids.filter((id) => this.#discard.run(now, nsId, id).changes > 0);
    });
  }

  recordResends(namespace: string, links: ResendLink[]): Promise<void> {
    return this.#ctx.write('record resends', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      for (const link of links) {
        this.#link.run(link.resendId, nsId, link.originalId, link.target, link.edited ? 1 : 0, link.user, link.createdAt);
        this.#resolve.run(link.createdAt, nsId, link.originalId);
      }
    });
  }

  links(namespace: string, id: number): Promise<MessageLinks> {
    return this.#ctx.run('read message links', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return toLinks(id, nsId === undefined ? [] : this.#links.all(nsId, id, id));
    });
  }

  suspended(namespace: string, query: SuspendedQuery): Promise<MessageHeader[]> {
    return this.#ctx.run('read suspended messages', (db) => {
      const nsId = this.#ctx.namespaceId(namespace);
      if (nsId === undefined || query.limit <= 0) return [];
      const where = [`ns_id = ?`, suspended];
      const params: Array<number | string> = [nsId];
      if (query.target !== undefined) {
        where.push('target = ?');
        params.push(query.target);
      }
      if (query.beforeId !== undefined) {
        where.push('id < ?');
        params.push(query.beforeId);
      }
      params.push(query.limit);
      const rows = db
        .prepare<Array<number | string>, HeaderRow>(
          `SELECT ${headerColumns} FROM messages INDEXED BY messages_by_status WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
        )
        .all(...params);
      return rows.map((row) => toHeader(namespace, row));
    });
  }

  suspendedCounts(namespace: string): Promise<Array<{ target: string; count: number }>> {
    return this.#ctx.run('count suspended messages', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#counts.all(nsId);
    });
  }
}
