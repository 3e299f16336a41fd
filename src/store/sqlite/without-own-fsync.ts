/**
 * Runs a write transaction with `synchronous = NORMAL` (no fsync of its own: its frames only go to
 * the WAL) and then puts the connection's level back. The level must be set by a PRAGMA compiled
 * each time: SQLite applies `PRAGMA synchronous = …` while *compiling* the statement, and running
 * an already prepared one does nothing. A pair of such statements prepared once for reuse set the
 * connection to the second one's level for good — every group commit then fsynced on the event
 * loop whatever the durability, as the store did until this helper (see docs/benchmarks.md).
 */
import type Database from 'better-sqlite3';

export function withoutOwnFsync<T>(db: Database.Database, work: () => T): T {
  const level = Number(db.pragma('synchronous', { simple: true }));
  if (level <= 1) return work();
  db.pragma('synchronous = NORMAL');
  try {
    return work();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
