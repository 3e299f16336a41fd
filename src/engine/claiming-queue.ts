/**
 * The queue of an item when several nodes share the store: requests stay in the database and a
 * node takes them by claiming (`SELECT … FOR UPDATE SKIP LOCKED` with a lease). Claimed requests
 * are renewed while held; a dead node's leases expire and another node claims the requests again.
 * Idle jobs wake on a notification from the node that queued a request, with a slow poll as the
 * fallback (notifications can be missed while a connection is re-established).
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
  private readonly held = new Set<number>();
  private takers: Array<(message: StoredMessage | null) => void> = [];
  private closed = false;
  private claiming = false;
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

  get hasIdleJob(): boolean {
    return this.takers.length > 0;
  }

  peekOldest(): StoredMessage | undefined {
    return this.buffer[0];
  }

  /** A request was queued here: it is claimed like any other. */
  push(_message: StoredMessage): void {
    void this.fill();
  }

  wake(): void {
    void this.fill();
  }

  take(): Promise<StoredMessage | null> {
    const next = this.buffer.shift();
    if (next) return Promise.resolve(next);
    if (this.closed) return Promise.resolve(null);
    const waiting = new Promise<StoredMessage | null>((resolve) => this.takers.push(resolve));
    void this.fill();
    return waiting;
  }

  done(id: number): void {
    this.held.delete(id);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.renewTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const taker of this.takers.splice(0)) taker(null);
  }

  reopen(): void {
    this.closed = false;
  }

  /** Gives the claimed but untaken requests back to the cluster; nothing is handed on locally. */
  drain(): StoredMessage[] {
    const released = this.buffer.splice(0);
    for (const message of released) this.held.delete(message.id);
    if (released.length > 0) {
      this.store.messages
        .update(released.map((m) => ({ id: m.id, status: 'queued' as const, leaseOwner: null, leaseUntil: null })))
        .catch(this.options.onError);
    }
    return [];
  }

  private async fill(): Promise<void> {
    if (this.claiming || this.closed || this.takers.length === 0) return;
    this.claiming = true;
    try {
      while (!this.closed && this.takers.length > 0) {
        const { namespace, target, nodeId, leaseMs, batch } = this.options;
        const claimed = await this.store.messages.claim(namespace, [target], nodeId, Math.max(batch, this.takers.length), leaseMs);
        if (claimed.length === 0) break;
        for (const message of claimed) {
          this.held.add(message.id);
          const taker = this.takers.shift();
          if (taker) taker(message);
          else this.buffer.push(message);
        }
      }
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.claiming = false;
    }
    if (!this.closed && this.takers.length > 0) this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      void this.fill();
    }, this.options.pollMs);
    this.wakeTimer.unref();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.store.messages.extendLeases([...this.held], this.options.nodeId, this.options.leaseMs);
    } catch (error) {
      this.options.onError(error);
    }
  }
}
