/**
 * Alerts on PostgreSQL: an upsert on the partial unique index of open alerts counts repeats atomically, also across nodes.
 * Concurrent records of one key reach the upsert in any order (the pool's connections, other nodes), so
 * the first and last times are the earliest and latest seen, and the text is the latest occurrence's.
 */
import { toStoredAlert, type AlertOccurrence, type AlertQuery, type AlertRepository, type AlertRow, type StoredAlert } from '../alerts.ts';
import type { PostgresContext } from './postgres-context.ts';

const columns = 'id, source, category, alert_key, text, first_time, last_time, count, acknowledged, acknowledged_by, acknowledged_at';

export class PostgresAlerts implements AlertRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  record(namespace: string, occurrence: AlertOccurrence): Promise<StoredAlert> {
    return this.#ctx.run('record an alert', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const { source, category, key, text, time } = occurrence;
      const { rows } = await this.#ctx.pool.query<AlertRow>(
        `INSERT INTO alerts AS a (ns_id, source, category, alert_key, text, first_time, last_time, count, acknowledged)
         VALUES ($1, $2, $3, $4, $5, $6, $6, 1, FALSE)
         ON CONFLICT (ns_id, source, category, alert_key) WHERE NOT acknowledged
         DO UPDATE SET count = a.count + 1,
           text = CASE WHEN EXCLUDED.last_time >= a.last_time THEN EXCLUDED.text ELSE a.text END,
           first_time = LEAST(a.first_time, EXCLUDED.first_time),
           last_time = GREATEST(a.last_time, EXCLUDED.last_time)
         RETURNING ${columns}`,
        [nsId, source, category, key, text, time],
      );
      return toStoredAlert(namespace, rows[0]!);
    });
  }

  list(namespace: string, query: AlertQuery): Promise<StoredAlert[]> {
    return this.#ctx.run('list alerts', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined || query.limit <= 0) return [];
      const values: Array<number | boolean> = [nsId, query.limit];
      let filter = '';
      if (query.acknowledged !== undefined) {
        values.push(query.acknowledged);
        filter = ' AND acknowledged = $3';
      }
      const { rows } = await this.#ctx.pool.query<AlertRow>(
        `SELECT ${columns} FROM alerts WHERE ns_id = $1${filter} ORDER BY last_time DESC, id DESC LIMIT $2`,
        values,
      );
      return rows.map((row) => toStoredAlert(namespace, row));
    });
  }

  acknowledge(namespace: string, ids: number[], user: string, time: number): Promise<number> {
    return this.#ctx.run('acknowledge alerts', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      if (ids.length === 0) return 0;
      const { rowCount } = await this.#ctx.pool.query(
        'UPDATE alerts SET acknowledged = TRUE, acknowledged_by = $1, acknowledged_at = $2 WHERE ns_id = $3 AND id = ANY($4::bigint[]) AND NOT acknowledged',
        [user, time, nsId, ids],
      );
      return rowCount ?? 0;
    });
  }
}
