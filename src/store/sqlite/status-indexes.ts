/**
 * The two status indexes of `messages` (`messages_by_status`, `messages_by_target`) hold only the
 * messages that are not completed: the queues, the leases, the failures. Completed messages are
 * nearly all of a store and nobody looks them up by status; leaving them out spares every insert of
 * a completed message (most of them: a request and its completion usually share a group commit)
 * two index writes, about a third of the hot path's WAL frames (docs/store.md).
 *
 * SQLite uses a partial index only for a query whose WHERE contains the index's condition as a term
 * of its own (it does not reason that `status = 'queued'` excludes 'completed'), so every query
 * meant for these indexes adds this term.
 */
export function notCompleted(alias?: string): string {
  return `${alias === undefined ? '' : `${alias}.`}status <> 'completed'`;
}

/**
 * The term a search by `status` adds so that the status indexes may serve it: none for no status or
 * for `completed`, whose messages are not in them (such a search walks the namespace).
 */
export function statusSearchTerm(status: string | undefined, alias: string): string | null {
  return status === undefined || status === 'completed' ? null : notCompleted(alias);
}

/** The condition the migration `status-indexes-without-completed` gives both indexes. */
export const statusIndexCondition = notCompleted();
