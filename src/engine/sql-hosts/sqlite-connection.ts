/**
 * An SQLite database opened read-only (the file must exist; the connection cannot write, and a
 * statement that would is refused before it runs). better-sqlite3 runs a query synchronously: a
 * `<sql>` lookup is meant to be an indexed SELECT, and a long one holds the server for its length.
 */
import Database from 'better-sqlite3';
import type { SqlQuery } from '../../dtl/index.ts';
import { toSqlValue, type SqlConnection, type SqlRow } from './sql-connection.ts';

export class SqliteConnection implements SqlConnection {
  private readonly database: Database.Database;

  constructor(path: string) {
    this.database = new Database(path, { readonly: true, fileMustExist: true });
    this.database.pragma('query_only = ON');
  }

  async firstRow(query: SqlQuery): Promise<SqlRow | undefined> {
    const statement = this.database.prepare(query.text);
    if (!statement.readonly || !statement.reader) throw new Error('an SQL host runs only SELECT statements');
    const row = statement.raw(true).get(...query.params) as unknown[] | undefined;
    return row === undefined ? undefined : row.slice(0, query.columns).map(toSqlValue);
  }

  async close(): Promise<void> {
    this.database.close();
  }
}
