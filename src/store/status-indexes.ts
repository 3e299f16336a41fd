/**
 * The two status indexes of `messages` (`messages_by_status`, `messages_by_target`) hold only the
 * messages that are not completed: the queues, the leases, the failures, on SQLite and PostgreSQL
 * alike (each driver's migration `status-indexes-without-completed`). Completed messages are nearly
 * all of a store and nobody looks them up by status; leaving them out spares every insert of a
 * completed message (most of them: a request and its completion usually share a group commit) its
 * entries there — about a third of SQLite's WAL frames on the hot path, 8 of PostgreSQL's 31 message
 * index entries per built-in round trip (docs/store.md).
 *
 * Neither database uses a partial index unless the query's WHERE carries the index's condition as a
 * term of its own: SQLite does not reason that `status = 'queued'` excludes 'completed', and
 * PostgreSQL cannot prove it from `status = $1`, a parameter. So every query meant for these indexes
 * adds this term.
 */
export function notCompleted(alias?: string): string {
  return `${alias === undefined ? '' : `${alias}.`}status <> 'completed'`;
}

/**
 * The term a search by `status` adds so that the status indexes may serve it: none for no status or
 * for `completed`, whose messages are not in them (such a search walks the namespace's index).
 */
export function statusSearchTerm(status: string | undefined, alias: string): string | null {
  return status === undefined || status === 'completed' ? null : notCompleted(alias);
}

/** The condition the migrations `status-indexes-without-completed` give both indexes. */
export const statusIndexCondition = notCompleted();
