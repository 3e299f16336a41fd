/**
 * Which of the store's two group committers a write joins: the one whose batches wait for the disk,
 * or the one whose batches need not (writes about requests that have a parent, see
 * postgres-writes.ts). Keeping them apart lets those writes commit without queueing behind an fsync.
 *
 * This is only a routing hint: the batch statement itself decides, from the rows, whether its commit
 * waits for the disk. A wrong guess costs time (a batch that had to wait anyway), never safety.
 *
 * Inserts say it themselves (every message has a parent). A patch names only an id, so the store
 * remembers which ids it inserted or claimed with a parent until a patch gives them a final status.
 */
import type { MessageStatus } from '../../core/message.ts';
import type { PgWrite } from './postgres-writes.ts';

/** Beyond this many remembered ids (requests never finished here), the memory starts over. */
const maxRemembered = 100_000;
const finalStatuses: ReadonlySet<MessageStatus> = new Set(['completed', 'error', 'discarded']);

export class CommitRouting {
  readonly #children = new Set<number>();

  /** Remembers the ids of requests that have a parent (inserted or claimed by this store). */
  note(rows: ReadonlyArray<{ id: number; parentId: number | null }>): void {
    if (this.#children.size + rows.length > maxRemembered) this.#children.clear();
    for (const row of rows) if (row.parentId !== null) this.#children.add(row.id);
  }

  /** Whether the write is about requests with a parent only (so its commit need not wait for the disk). */
  relaxable(op: PgWrite): boolean {
    switch (op.kind) {
      case 'insert-messages':
        return op.lazy === true || op.messages.every((message) => message.parentId !== null);
      case 'patch-messages': {
        const relaxable = op.patches.every((patch) => this.#children.has(patch.id));
        for (const patch of op.patches) if (patch.status !== undefined && finalStatuses.has(patch.status)) this.#children.delete(patch.id);
        return relaxable;
      }
      case 'append-log':
        return false;
    }
  }
}

/** One of the store's committers as its writers see it: writes submitted to one lane commit in submission order. */
export interface WriteLane {
  /** `lazy`: the write rides in the lane's next commit instead of causing one (GroupCommitter). */
  submit(op: PgWrite, lazy?: boolean): Promise<number[]>;
}

/** How the message repository submits its writes (postgres-store.ts builds it). */
export interface MessageWrites {
  /**
   * The lane `op` goes to, by CommitRouting's hint; call it once per op (a patch's final status
   * makes the routing forget its ids). Null when writes are not group-committed, so that no write is
   * ordered after another.
   */
  laneFor(op: PgWrite): WriteLane | null;
  /** Submits `op` to `lane` (null: as its own transaction) and resolves with its ids once committed. */
  submit(op: PgWrite, lane: WriteLane | null, lazy?: boolean): Promise<number[]>;
}
