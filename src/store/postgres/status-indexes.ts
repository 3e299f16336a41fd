/**
 * The two status indexes of `messages` on PostgreSQL (`messages_by_status`, `messages_by_target`)
 * hold only the messages that are not completed: the queues, the leases, the failures, as on SQLite
 * (../sqlite/status-indexes.ts). Completed messages are nearly all of a store and nobody looks them
 * up by status. Every message row entered six indexes, and a built-in round trip inserts three
 * completed rows and completes a fourth (a status change is never a HOT update, so it writes an
 * entry in every index): leaving them out spares 8 of its 31 message index entries (migration
 * 'status-indexes-without-completed'; bench/postgres-profile.ts counts the index blocks).
 *
 * PostgreSQL uses a partial index only where it can prove the query's WHERE implies the index's
 * condition; it cannot from `status = $1`, a parameter, so every query meant for these indexes
 * carries the condition as a term of its own.
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

/** The condition the migration `status-indexes-without-completed` gives both indexes. */
export const statusIndexCondition = notCompleted();
