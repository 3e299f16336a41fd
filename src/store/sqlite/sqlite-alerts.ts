/** Alerts on SQLite: an upsert on the partial unique index of open alerts counts repeats atomically. */
import type Database from 'better-sqlite3';
import { toStoredAlert, type AlertOccurrence, type AlertQuery, type AlertRepository, type AlertRow, type StoredAlert } from '../alerts.ts';
import type { SqliteContext } from './sqlite-context.ts';

const columns = 'id, source, category, alert_key, text, first_time, last_time, count, acknowledged, acknowledged_by, acknowledged_at';

export class SqliteAlerts implements AlertRepository {
  readonly #ctx: SqliteContext;
  readonly #record: Database.Statement<[number, string, string, string, string, number, number], AlertRow>;
  readonly #acknowledge: Database.Statement<[string, number, number, number]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    this.#record = ctx.db.prepare(`
      INSERT INTO alerts (ns_id, source, category, alert_key, text, first_time, last_time, count, acknowledged)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, 0)
      ON CONFLICT (ns_id, source, category, alert_key) WHERE acknowledged = 0
      DO UPDATE SET count = count + 1, text = excluded.text, last_time = MAX(last_time, excluded.last_time)
      RETURNING ${columns}`);
    this.#acknowledge = ctx.db.prepare(
      'UPDATE alerts SET acknowledged = 1, acknowledged_by = ?, acknowledged_at = ? WHERE ns_id = ? AND id = ? AND acknowledged = 0',
    );
  }

  record(namespace: string, occurrence: AlertOccurrence): Promise<StoredAlert> {
    return this.#ctx.write('record an alert', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const { source, category, key, text, time } = occurrence;
      return toStoredAlert(namespace, this.#record.get(nsId, source, category, key, text, time, time)!);
    });
  }

  list(namespace: string, query: AlertQuery): Promise<StoredAlert[]> {
    return this.#ctx.run('list alerts', (db) => {
      const nsId = this.#ctx.namespaceId(namespace);
      if (nsId === undefined || query.limit <= 0) return [];
      const filter = query.acknowledged === undefined ? '' : ` AND acknowledged = ${query.acknowledged ? 1 : 0}`;
      const rows = db
        .prepare<[number, number], AlertRow>(`SELECT ${columns} FROM alerts WHERE ns_id = ?${filter} ORDER BY last_time DESC, id DESC LIMIT ?`)
        .all(nsId, query.limit);
      return rows.map((row) => toStoredAlert(namespace, row));
    });
  }

  acknowledge(namespace: string, ids: number[], user: string, time: number): Promise<number> {
    return this.#ctx.write('acknowledge alerts', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      let changed = 0;
      for (const id of ids) changed += this.#acknowledge.run(user, time, nsId, id).changes;
      return changed;
    });
  }
}
