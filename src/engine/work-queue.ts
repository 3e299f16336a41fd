/**
 * The in-memory queue of one item: the requests persisted for it and not yet taken by a job.
 * The store is the source of truth (everything here is also a `queued` row); this queue only saves
 * a round trip to the database per message on a single node. FIFO: with pool size 1 an item keeps
 * its order. A suspended queue (an operator's hold, docs/operations.md) keeps what it holds and gives
 * nothing to its jobs until it is resumed.
 */
import type { StoredMessage } from '../core/message.ts';

/** The queue an item's jobs take their requests from. */
export interface ItemQueue {
  /** Requests held here and not yet taken. */
  readonly depth: number;
  peekOldest(): StoredMessage | undefined;
  /** A request for this item was persisted here. */
  push(message: StoredMessage): void;
  /** Requests may be waiting in the store (queued on another node, or released): look for them. */
  wake(): void;
  /** The next request, or null once closed. */
  take(): Promise<StoredMessage | null>;
  /** Whether a job of this node waits for work here (it will take what is queued next). */
  readonly hasIdleJob: boolean;
  /** The job finished with this request (its outcome is persisted). */
  done(id: number): void;
  close(): void;
  reopen(): void;
  /** Empties the queue; returns what a successor queue must be given (requests held only here). */
  drain(): StoredMessage[];
  /** Delivery is held: requests stay queued, jobs wait. */
  readonly suspended: boolean;
  /** Holds delivery (true) or lets it go on (false); a request a job already took is not affected. */
  setSuspended(suspended: boolean): void;
  /**
   * Whether a request a job took is still `queued` in the store while it is handled (true here: the
   * store learns its outcome only), or recorded `delivered` by the claim (false: claiming queues).
   */
  readonly takenStayQueued: boolean;
}

export class WorkQueue implements ItemQueue {
  private items: StoredMessage[] = [];
  private head = 0;
  private takers: Array<(message: StoredMessage | null) => void> = [];
  private closed = false;
  private held = false;
  readonly takenStayQueued = true;

  get depth(): number {
    return this.items.length - this.head;
  }

  get hasIdleJob(): boolean {
    return this.takers.length > 0 && !this.held;
  }

  get suspended(): boolean {
    return this.held;
  }

  setSuspended(suspended: boolean): void {
    this.held = suspended;
    while (!this.held && this.takers.length > 0 && this.head < this.items.length) this.takers.shift()!(this.next());
  }

  /** The oldest waiting message, for the queues page. */
  peekOldest(): StoredMessage | undefined {
    return this.items[this.head];
  }

  push(message: StoredMessage): void {
    const taker = this.held ? undefined : this.takers.shift();
    if (taker) {
      taker(message);
      return;
    }
    this.items.push(message);
  }

  /** Waits for the next message; resolves null once the queue is closed. */
  take(): Promise<StoredMessage | null> {
    if (this.head < this.items.length && !this.held) return Promise.resolve(this.next());
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => this.takers.push(resolve));
  }

  wake(): void {
    // Everything for this queue arrives through push on a single node.
  }

  done(_id: number): void {
    // Nothing is held for a taken message: the store has it.
  }

  /** Wakes every waiting job with null; queued messages stay (they are also in the store). */
  close(): void {
    this.closed = true;
    for (const taker of this.takers.splice(0)) taker(null);
  }

  reopen(): void {
    this.closed = false;
  }

  /** Removes and returns everything still waiting. */
  drain(): StoredMessage[] {
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return rest;
  }

  private next(): StoredMessage {
    const message = this.items[this.head] as StoredMessage;
    this.items[this.head] = undefined as unknown as StoredMessage;
    this.head++;
    // Compact now and then so a long-lived queue does not keep a growing array of holes.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return message;
  }
}
