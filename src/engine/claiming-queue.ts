/**
 * The queue of an item when several nodes share the store: requests stay in the database and a
 * node takes them by claiming (`SELECT … FOR UPDATE SKIP LOCKED` with a lease). Claimed requests
 * are renewed while held; a dead node's leases expire and another node claims the requests again.
 * Idle jobs wake on a notification from the node that queued a request, with a slow poll as the
 * fallback (notifications can be missed while a connection is re-established).
 *
 * Hand-off: a request this node sends while nothing older may be queued for the item, and while
 * it has room — a waiting job, or fewer than two batches held ahead (a claim takes one batch; a
 * caller often sends its next request just before the job that answered it takes its next) — is
 * written already claimed by this node (`insertClaimed`) and handed over when it is pushed: one
 * statement instead of an insert and a claim, and no other node is woken for it. The room is
 * reserved while the insert runs (`reserveLocal`), so a claim meanwhile cannot overfill it; with
 * anything possibly queued before it the request is queued and claimed like any other, in order
 * (an item with one job keeps its order).
 *
 * Suspended (an operator's hold): the queue claims nothing, gives back what it holds unclaimed, and
 * hands nothing over; every node holds the item's queue (the suspension is announced and re-read after
 * missed notifications), so the requests stay `queued` in the store until it is resumed.
 */
import type { StoredMessage } from '../core/message.ts';
import type { Store } from '../store/store.ts';
import type { ItemQueue } from './work-queue.ts';

export interface ClaimingQueueOptions {
  namespace: string;
  target: string;
  nodeId: string;
  leaseMs: number;
  /** How many requests one claim may take (the item's pool size). */
  batch: number;
  /** Fallback poll while idle. */
  pollMs: number;
  onError: (error: unknown) => void;
}

export class ClaimingQueue implements ItemQueue {
  private buffer: StoredMessage[] = [];
  private readonly leased = new Set<number>();
  private takers: Array<(message: StoredMessage | null) => void> = [];
  private closed = false;
  private held = false;
  readonly takenStayQueued = false;
  private claiming = false;
  /** Something was pushed or woken while a claim ran: claim again before waiting for the poll. */
  private claimAgain = false;
  /** The last claim found fewer requests than it asked for and nothing was queued here since. */
  private backlogEmpty = false;
  /** Requests whose claimed insert is under way or awaits its push (each has its room here). */
  private reserved = 0;
  /** Requests inserted already claimed for this node, to be handed over when pushed. */
  private readonly handoffs = new Set<number>();
  private wakeTimer: NodeJS.Timeout | null = null;
  private readonly renewTimer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly options: ClaimingQueueOptions,
  ) {
    this.renewTimer = setInterval(() => void this.renew(), Math.max(100, options.leaseMs / 3));
    this.renewTimer.unref();
  }

  get depth(): number {
    return this.buffer.length;
  }

  /**
   * A job waits here, or a request just inserted claimed for this node is about to be handed over:
   * either way this node takes what was just queued, and no other node needs waking for it.
   */
  get hasIdleJob(): boolean {
    return !this.held && (this.handoffs.size > 0 || this.takers.length > this.reserved);
  }

  get suspended(): boolean {
    return this.held;
  }

  /** Held: what this node claimed and no job took yet goes back to the cluster. Resumed: claims again. */
  setSuspended(suspended: boolean): void {
    this.held = suspended;
    if (suspended) {
      this.release(this.buffer.splice(0));
      return;
    }
    this.backlogEmpty = false;
    void this.fill();
  }

  peekOldest(): StoredMessage | undefined {
    return this.buffer[0];
  }

  /**
   * Reserves room here for the next request this node inserts for the item, when nothing may be
   * queued before it. True: insert it with `insertClaimed`, then `expectHandoff` (or `cancelReservation`).
   */
  reserveLocal(): boolean {
    if (this.closed || this.held || !this.backlogEmpty) return false;
    if (this.buffer.length + this.reserved >= this.takers.length + 2 * this.options.batch) return false;
    this.reserved++;
    return true;
  }

  /** The reserved request was inserted, claimed for this node, as `id`: its push hands it over. */
  expectHandoff(id: number): void {
    this.handoffs.add(id);
  }

  /** The reserved request's insert failed: the job is free for claims again. */
  cancelReservation(): void {
    this.reserved = Math.max(0, this.reserved - 1);
    void this.fill();
  }

  /** A request was queued here: handed over when it was inserted claimed for this node, claimed like any other otherwise. */
  push(message: StoredMessage): void {
    if (this.handoffs.delete(message.id)) {
      this.reserved = Math.max(0, this.reserved - 1);
      // Updated in place, not copied: a spread copy of a message kept its young objects alive across
      // scavenges (running-production.ts, send). The message is the one this node just sent.
      message.status = 'delivered';
      message.leaseOwner = this.options.nodeId;
      this.hand(message);
      return;
    }
    this.backlogEmpty = false;
    void this.fill();
  }

  wake(): void {
    this.backlogEmpty = false;
    void this.fill();
  }

  take(): Promise<StoredMessage | null> {
    const next = this.held ? undefined : this.buffer.shift();
    if (next) return Promise.resolve(next);
    if (this.closed) return Promise.resolve(null);
    const waiting = new Promise<StoredMessage | null>((resolve) => this.takers.push(resolve));
    void this.fill();
    return waiting;
  }

  done(id: number): void {
    this.leased.delete(id);
  }

  close(): void {
    this.closed = true;
    this.reserved = 0;
    this.handoffs.clear();
    clearInterval(this.renewTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const taker of this.takers.splice(0)) taker(null);
  }

  reopen(): void {
    this.closed = false;
  }

  /** Gives the claimed but untaken requests back to the cluster; nothing is handed on locally. */
  drain(): StoredMessage[] {
    this.release(this.buffer.splice(0));
    return [];
  }

  /** Puts claimed requests no job took back to `queued` for any node to claim. */
  private release(messages: StoredMessage[]): void {
    for (const message of messages) this.leased.delete(message.id);
    if (messages.length > 0) {
      this.store.messages
        .update(messages.map((m) => ({ id: m.id, status: 'queued' as const, leaseOwner: null, leaseUntil: null })))
        .catch(this.options.onError);
    }
  }

  /** Gives a request this node holds to a waiting job, or keeps it for the next take; released again when closed meanwhile. */
  private hand(message: StoredMessage): void {
    if (this.closed || this.held) {
      this.release([message]);
      return;
    }
    this.leased.add(message.id);
    const taker = this.takers.shift();
    if (taker) taker(message);
    else this.buffer.push(message);
  }

  /** Waiting jobs not promised to a hand-off. */
  private get unreserved(): number {
    return Math.max(0, this.takers.length - this.reserved);
  }

  private async fill(): Promise<void> {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    if (this.closed || this.held || this.unreserved <= 0) return;
    // Nothing is queued that this node knows of: what it sends comes by hand-off, what other nodes
    // queue comes with a wake-up, and the poll looks anyway now and then.
    if (this.backlogEmpty) {
      this.scheduleRetry();
      return;
    }
    this.claiming = true;
    try {
      while (!this.closed && !this.held && this.unreserved > 0) {
        this.claimAgain = false;
        const { namespace, target, nodeId, leaseMs, batch } = this.options;
        const limit = Math.max(batch, this.unreserved);
        const claimed = await this.store.messages.claim(namespace, [target], nodeId, limit, leaseMs);
        for (const message of claimed) {
          this.leased.add(message.id);
          // A job reserved meanwhile waits for its hand-off: claimed requests go to the others first.
          const taker = this.unreserved > 0 && !this.held ? this.takers.shift() : undefined;
          if (taker) taker(message);
          else this.buffer.push(message);
        }
        if (claimed.length < limit) {
          // Nothing more was queued when the claim ran; unless something came meanwhile, wait.
          if (!this.claimAgain) {
            this.backlogEmpty = true;
            break;
          }
        }
      }
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.claiming = false;
    }
    if (!this.closed && !this.held && this.unreserved > 0) this.scheduleRetry();
    // Suspended while the claim ran: what it brought back is given back.
    if (this.held) this.release(this.buffer.splice(0));
  }

  private scheduleRetry(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      // Only a claim that runs now may forget what the last one found (the hand-offs depend on it).
      if (this.closed || this.held || this.unreserved <= 0) return;
      this.backlogEmpty = false;
      void this.fill();
    }, this.options.pollMs);
    this.wakeTimer.unref();
  }

  private async renew(): Promise<void> {
    if (this.leased.size === 0) return;
    try {
      await this.store.messages.extendLeases([...this.leased], this.options.nodeId, this.options.leaseMs);
    } catch (error) {
      this.options.onError(error);
    }
  }
}
