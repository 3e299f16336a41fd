/**
 * Queue and message controls on PostgreSQL (ControlRepository in ../controls.ts). The status changes
 * are conditional single statements: a claim (`FOR UPDATE SKIP LOCKED`) and an abort of the same
 * request cannot both win — whichever comes second finds the row no longer `queued`.
 */
import { sql } from 'kysely';
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
import type { PostgresContext } from './postgres-context.ts';
import { notCompleted } from '../status-indexes.ts';

const headerColumns = `id, session_id, parent_id, corresponding_id, kind, source, target, response_required,
  status, priority, description, error, attempts, created_at, updated_at, lease_owner, lease_until`;
/** The SQL of src/core/message-suspension.ts, with the status indexes' condition (status-indexes.ts). */
const suspended = `kind = 'request' AND status = 'error' AND ${notCompleted()} AND NOT response_required`;

export class PostgresControls implements ControlRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  suspendQueue(namespace: string, suspension: QueueSuspension): Promise<boolean> {
    return this.#ctx.run('suspend a queue', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const { rowCount } = await this.#ctx.pool.query(
        'INSERT INTO queue_suspensions (ns_id, item, suspended_by, suspended_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [nsId, suspension.item, suspension.suspendedBy, suspension.suspendedAt],
      );
      return (rowCount ?? 0) > 0;
    });
  }

  resumeQueue(namespace: string, item: string): Promise<boolean> {
    return this.#ctx.run('resume a queue', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const { rowCount } = await this.#ctx.pool.query('DELETE FROM queue_suspensions WHERE ns_id = $1 AND item = $2', [nsId, item]);
      return (rowCount ?? 0) > 0;
    });
  }

  suspendedQueues(namespace: string): Promise<QueueSuspension[]> {
    return this.#ctx.run('read suspended queues', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const { rows } = await this.#ctx.pool.query<QueueSuspensionRow>(
        'SELECT item, suspended_by, suspended_at FROM queue_suspensions WHERE ns_id = $1 ORDER BY item',
        [nsId],
      );
      return rows.map(toQueueSuspension);
    });
  }

  abort(namespace: string, ids: number[], reason: string): Promise<number[]> {
    return this.#ctx.run('abort messages', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const { rows } = await this.#ctx.pool.query<{ id: number }>(
        `UPDATE messages SET status = 'discarded', error = $1, updated_at = $2
         WHERE ns_id = $3 AND id = ANY($4::bigint[]) AND kind = 'request' AND status = 'queued' AND lease_owner IS NULL
         RETURNING id`,
        [reason, Date.now(), nsId, ids],
      );
      return inGivenOrder(ids, rows);
    });
  }

  discard(namespace: string, ids: number[]): Promise<number[]> {
    return this.#ctx.run('discard messages', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const { rows } = await this.#ctx.pool.query<{ id: number }>(
        `UPDATE messages SET status = 'discarded', updated_at = $1
         WHERE ns_id = $2 AND id = ANY($3::bigint[]) AND kind = 'request' AND status = 'error'
         RETURNING id`,
        [Date.now(), nsId, ids],
      );
      return inGivenOrder(ids, rows);
    });
  }

  recordResends(namespace: string, links: ResendLink[]): Promise<void> {
    return this.#ctx.write('record resends', async (trx) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      for (const link of links) {
        await sql`INSERT INTO message_resends (resend_id, ns_id, original_id, target, edited, by_user, created_at)
          VALUES (${link.resendId}, ${nsId}, ${link.originalId}, ${link.target}, ${link.edited}, ${link.user}, ${link.createdAt})`.execute(trx);
        await sql`UPDATE messages SET status = 'discarded', updated_at = ${link.createdAt}
          WHERE ns_id = ${nsId} AND id = ${link.originalId} AND ${sql.raw(suspended)}`.execute(trx);
      }
    });
  }

  links(namespace: string, id: number): Promise<MessageLinks> {
    return this.#ctx.run('read message links', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return toLinks(id, []);
      const { rows } = await this.#ctx.pool.query<ResendLinkRow>(
        `SELECT resend_id, original_id, target, edited, by_user, created_at FROM message_resends
         WHERE ns_id = $1 AND (resend_id = $2 OR original_id = $2) ORDER BY created_at, resend_id`,
        [nsId, id],
      );
      return toLinks(id, rows);
    });
  }

  suspended(namespace: string, query: SuspendedQuery): Promise<MessageHeader[]> {
    return this.#ctx.run('read suspended messages', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined || query.limit <= 0) return [];
      const where = ['ns_id = $1', suspended];
      const params: Array<number | string> = [nsId];
      if (query.target !== undefined) {
        params.push(query.target);
        where.push(`target = $${params.length}`);
      }
      if (query.beforeId !== undefined) {
        params.push(query.beforeId);
        where.push(`id < $${params.length}`);
      }
      params.push(query.limit);
      const { rows } = await this.#ctx.pool.query<HeaderRow>(
        `SELECT ${headerColumns} FROM messages WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map((row) => toHeader(namespace, row));
    });
  }

  suspendedCounts(namespace: string): Promise<Array<{ target: string; count: number }>> {
    return this.#ctx.run('count suspended messages', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const { rows } = await this.#ctx.pool.query<{ target: string; count: number }>(
        `SELECT target, COUNT(*)::int AS count FROM messages WHERE ns_id = $1 AND ${suspended} GROUP BY target ORDER BY target`,
        [nsId],
      );
      return rows;
    });
  }
}

function inGivenOrder(ids: number[], rows: Array<{ id: number }>): number[] {
  const changed = new Set(rows.map((row) => row.id));
  return ids.filter((id) => changed.has(id));
}
