/**
 * A PostgreSQL database through a small pool. Every query runs in its own `READ ONLY` transaction
 * that is rolled back afterwards (whatever a function called by the SELECT changed is undone), with
 * a statement timeout, so a slow query ends with an error instead of holding a message forever.
 */
import pg from 'pg';
import type { SqlQuery } from '../../dtl/index.ts';
import { toSqlValue, type SqlConnection, type SqlRow } from './sql-connection.ts';

/** The longest a `<sql>` statement may run on PostgreSQL. */
const statementTimeoutMs = 30_000;

/** DTL hands statements with `?` placeholders; PostgreSQL numbers them (`$1`…). Quoted text is left alone. */
export function numberPlaceholders(text: string): string {
  let index = 0;
  return text
    .split(/('(?:[^']|'')*'|"(?:[^"]|"")*")/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\?/g, () => `$${++index}`)))
    .join('');
}

export class PostgresConnection implements SqlConnection {
  private readonly pool: pg.Pool;

  constructor(url: string, onIdleError: (error: Error) => void) {
    this.pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
    // An idle connection that breaks (database restarted) must not take the server down.
    this.pool.on('error', onIdleError);
  }

  async firstRow(query: SqlQuery): Promise<SqlRow | undefined> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${statementTimeoutMs}`);
      const result = await client.query<unknown[]>({ text: numberPlaceholders(query.text), values: query.params, rowMode: 'array' });
      const row = result.rows[0];
      return row === undefined ? undefined : row.slice(0, query.columns).map(toSqlValue);
    } catch (error) {
      broken = !(error instanceof pg.DatabaseError);
      throw error;
    } finally {
      if (!broken) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
