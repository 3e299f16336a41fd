/**
 * A real DtlHost for the vector tests: lookup tables from `lookup.json`, `<sql>` on an in-memory
 * SQLite database loaded from `sql-fixture.json` (better-sqlite3), Python run by the engine's
 * Python hook (a `python3` child per call).
 */
import Database from 'better-sqlite3';
import type { DtlHost, SqlQuery } from '../../src/dtl/index.ts';
import { pythonRunner } from '../../src/engine/dtl-python.ts';

export const runPython = pythonRunner(process.env.PYTHON ?? 'python3');

/** An in-memory SQLite database with `Schema.Table` tables from a fixture `{ "Schema.Table": [rows] }`. */
export function sqliteRunner(fixture: Record<string, Record<string, unknown>[]>): (query: SqlQuery) => (string | number | null)[] | undefined {
  const db = new Database(':memory:');
  for (const [qualified, rows] of Object.entries(fixture)) {
    const [schema, table] = qualified.includes('.') ? qualified.split('.') : ['main', qualified];
    if (schema !== 'main') db.exec(`ATTACH DATABASE ':memory:' AS "${schema}"`);
    const columns = Object.keys(rows[0] ?? {});
    db.exec(`CREATE TABLE "${schema}"."${table}" (${columns.map((c) => `"${c}"`).join(', ')})`);
    const insert = db.prepare(`INSERT INTO "${schema}"."${table}" VALUES (${columns.map(() => '?').join(', ')})`);
    for (const row of rows) insert.run(...columns.map((c) => row[c] as string | number | null));
  }
  return (query) => {
    const row = db
      .prepare(query.text)
      .raw(true)
      .get(...query.params) as (string | number | null)[] | undefined;
    return row;
  };
}

export function vectorHost(files: { lookup?: Record<string, Record<string, string>>; sql?: Record<string, Record<string, unknown>[]> }): DtlHost {
  const host: DtlHost = { runPython };
  if (files.lookup) {
    const tables = files.lookup;
    host.lookup = (table, key) => (Object.hasOwn(tables, table) && Object.hasOwn(tables[table]!, key) ? tables[table]![key] : undefined);
  }
  if (files.sql) host.runSql = sqliteRunner(files.sql);
  return host;
}
