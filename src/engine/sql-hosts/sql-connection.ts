/** One read-only SQL connection of a namespace (SQLite or PostgreSQL). */
import type { SqlQuery } from '../../dtl/index.ts';

export type SqlRow = (string | number | null)[];

export interface SqlConnection {
  /** The first row's first `query.columns` values, or undefined when there is no row. */
  firstRow(query: SqlQuery): Promise<SqlRow | undefined>;
  close(): Promise<void>;
}

/** SQL values to the strings and numbers DTL variables hold (bytes as text, big integers as text, booleans as 1/0). */
export function toSqlValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return JSON.stringify(value);
}
