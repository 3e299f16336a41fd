/**
 * Runs a write transaction with `synchronous = NORMAL` (no fsync of its own: its frames only go to
 * the WAL) and then puts the connection's level back. The level must be set by a PRAGMA compiled
 * each time: SQLite applies `PRAGMA synchronous = …` while *compiling* the statement, and running
 * an already prepared one does nothing. A pair of such statements prepared once for reuse set the
 * connection to the second one's level for good — every group commit then fsynced on the event
 * loop whatever the durability, as the store did until this helper (see docs/benchmarks.md).
 *
 * The hot path pays for this in every group commit, so the connection's level is read once, when
 * the switch is made (only the store's opening sets it), and set through `exec`, which compiles and
 * runs the PRAGMA in C. Reading the level for each commit and setting it through `db.pragma()` (a
 * statement object and result rows each time) cost 60–100 µs of every commit; this costs about 18.
 */
import type Database from 'better-sqlite3';

export type WithoutOwnFsync = <T>(work: () => T) => T;

export function withoutOwnFsync(db: Database.Database): WithoutOwnFsync {
  const level = Number(db.pragma('synchronous', { simple: true }));
  if (level <= 1) return (work) => work();
  const restore = `PRAGMA synchronous = ${level}`;
  return (work) => {
    db.exec('PRAGMA synchronous = NORMAL');
    try {
      return work();
    } finally {
      db.exec(restore);
    }
  };
}
