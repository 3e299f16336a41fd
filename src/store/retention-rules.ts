/**
 * What a purge may take, written once for both drivers (their SQL differs only in booleans and in
 * how a text's byte length is read): a finished message, not suspended, whose session has nothing
 * queued, in progress or suspended.
 */

export type Dialect = 'sqlite' | 'postgres';

/**
 * Suspended (O3, docs/operations.md): a request that failed for good while no caller waited for its
 * reply, kept aside until an operator resends or discards it. No column of its own: this predicate.
 */
function suspended(m: string, dialect: Dialect): string {
  const noCaller = dialect === 'sqlite' ? `${m}.response_required = 0` : `NOT ${m}.response_required`;
  return `(${m}.status = 'error' AND ${m}.kind = 'request' AND ${noCaller})`;
}

/** Queued, in progress (delivered) or suspended: work that is not over. */
function live(m: string, dialect: Dialect): string {
  return `(${m}.status IN ('queued', 'delivered') OR ${suspended(m, dialect)})`;
}

/**
 * The condition on message row `m`: finished (completed, discarded, or failed with its caller told)
 * and not suspended, and no message of its session still live — the session's trace stays whole
 * while any of its work goes on (IRIS's "keep integrity").
 */
export function eligibleMessage(m: string, dialect: Dialect = 'sqlite'): string {
  return `${m}.status IN ('completed', 'error', 'discarded') AND NOT ${suspended(m, dialect)}
    AND NOT EXISTS (SELECT 1 FROM messages live WHERE live.session_id = ${m}.session_id AND ${live('live', dialect)})`;
}

/** Byte length of a text column: SQLite's length() counts characters, so it reads the bytes of a BLOB cast. */
function octets(dialect: Dialect, column: string): string {
  return dialect === 'sqlite' ? `length(CAST(${column} AS BLOB))` : `octet_length(${column})`;
}

/** Fixed cost of a row beyond its texts (integers, row header, index entries): part of the freed-bytes estimate. */
const headerOverhead = 120;
const bodyOverhead = 16;
const logOverhead = 80;

export function headerBytes(m: string, dialect: Dialect = 'sqlite'): string {
  const texts = ['source', 'target', 'description', 'classname'].map((column) => octets(dialect, `${m}.${column}`));
  return `(${headerOverhead} + ${texts.join(' + ')} + coalesce(${octets(dialect, `${m}.error`)}, 0))`;
}

export function bodyBytes(b: string, dialect: Dialect = 'sqlite'): string {
  return `(${bodyOverhead} + ${octets(dialect, `${b}.data`)})`;
}

export function logEntryBytes(l: string, dialect: Dialect = 'sqlite'): string {
  const texts = ['config_name', 'job', 'source_class', 'source_method', 'text'].map((column) => octets(dialect, `${l}.${column}`));
  return `(${logOverhead} + ${texts.join(' + ')})`;
}
