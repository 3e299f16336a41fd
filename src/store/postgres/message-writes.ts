/**
 * How the message repository submits its writes: through the store's one group committer, whose
 * batches commit in submission order (postgres-store.ts builds it). One committer, not one for the
 * writes that wait for the disk and one for those that need not: writes handed on before their
 * commit (insertEager, insertClaimed) are followed by writes that must not commit before them — the
 * outcome of the caller a response was handed to, a response to a request that rides lazily — and
 * two committers could reorder them (a PostgreSQL crash between the two commits then kept a response
 * without its request, or a caller's outcome without its child's). Whether a batch's commit waits for
 * the disk is decided by its statement, from the rows (postgres-writes.ts).
 */
import type { PgWrite } from './postgres-writes.ts';

/** A committer as its writers see it: writes submitted to one lane commit in submission order. */
export interface WriteLane {
  /** `lazy`: the write rides in the lane's next commit instead of causing one (GroupCommitter). */
  submit(op: PgWrite, lazy?: boolean): Promise<number[]>;
}

export interface MessageWrites {
  /** The lane writes go to; null when writes are not group-committed, so that no write is ordered after another. */
  readonly lane: WriteLane | null;
  /** Submits `op` to `lane` (null: as its own transaction) and resolves with its ids once committed. */
  submit(op: PgWrite, lane: WriteLane | null, lazy?: boolean): Promise<number[]>;
}
