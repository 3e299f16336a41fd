/**
 * The coordinator of a server that is one node of several sharing a PostgreSQL store: its identity,
 * its heartbeat in the node registry, leases, and the one notification channel the nodes talk on —
 * wake-ups for queued requests, replies for callers waiting on another node, and lifecycle
 * commands. Its queues are claimed from the store (claiming-queue.ts), and requests a dead node
 * held are released when their lease expires.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConveyorError } from '../core/errors.ts';
import type { ClusterRepository, NewMessage, NodeRecord, Store } from '../store/store.ts';
import { ClaimingQueue } from './claiming-queue.ts';
import type { ClusterEvent, Coordinator, ProductionQueues, QueueContext } from './coordinator.ts';
import type { ItemQueue } from './work-queue.ts';

export interface PostgresCoordinatorOptions {
  heartbeatMs?: number;
  /** Lease of a claimed request; renewed at a third of it. */
  leaseMs?: number;
  apiUrl?: string | null;
  onError: (error: unknown) => void;
}

const channel = 'conveyor';

/** A notification on the channel: the event and the node that sent it. */
interface Envelope {
  from: string;
  event: ClusterEvent;
}

export class PostgresCoordinator implements Coordinator {
  readonly nodeId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** The other nodes keep running the productions when this one shuts down. */
  readonly productionsOutliveShutdown = true;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private listeners = new Set<(event: ClusterEvent | null) => void>();
  private readonly pendingWakes = new Map<string, ClusterEvent>();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    private readonly store: Store,
    private readonly cluster: ClusterRepository,
    private readonly options: PostgresCoordinatorOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? 5_000;
  }

  async start(): Promise<void> {
    await this.register();
    this.unsubscribe = await this.cluster.subscribe(channel, (payload) => this.dispatch(payload));
    this.heartbeatTimer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    await this.unsubscribe?.();
    await this.cluster.removeNode(this.nodeId).catch(this.options.onError);
  }

  listen(listener: (event: ClusterEvent | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Wake-ups for one queue sent in the same turn of the event loop go out as one notification (a
   * burst of sends would otherwise send one each, and wake every node once per send).
   */
  announce(event: ClusterEvent): void {
    if (event.type !== 'wake') {
      this.send(event);
      return;
    }
    const key = `${event.namespace}\u0000${event.target}`;
    if (this.pendingWakes.has(key)) return;
    this.pendingWakes.set(key, event);
    if (this.pendingWakes.size === 1) {
      setImmediate(() => {
        const wakes = [...this.pendingWakes.values()];
        this.pendingWakes.clear();
        for (const wake of wakes) this.send(wake);
      });
    }
  }

  private send(event: ClusterEvent): void {
    const envelope: Envelope = { from: this.nodeId, event };
    this.cluster.notify(channel, JSON.stringify(envelope)).catch(this.options.onError);
  }

  async liveNodes(): Promise<NodeRecord[]> {
    return (await this.cluster.listNodes()).filter((node) => node.silentMs < this.heartbeatMs * 3);
  }

  listNodes(): Promise<NodeRecord[]> {
    return this.cluster.listNodes();
  }

  holdLease(name: string, ttlMs: number): Promise<boolean> {
    return this.cluster.tryAcquireLease(name, this.nodeId, ttlMs);
  }

  private async releaseLease(name: string): Promise<void> {
    await this.cluster.releaseLease(name, this.nodeId);
  }

  /**
   * Runs `work` while holding the named lease, so no other node runs work under the same name at
   * the same time. Waits (bounded) for a holder that is busy; the lease is renewed while `work`
   * runs (a start may take long), and a dead holder's lease expires after `ttlMs`.
   */
  async exclusively<T>(name: string, work: () => Promise<T>, waitMs = 10_000, ttlMs = 30_000): Promise<T> {
    const deadline = Date.now() + waitMs;
    while (!(await this.holdLease(name, ttlMs))) {
      if (Date.now() > deadline) throw new ConveyorError('ERR_PRODUCTION_BUSY', `Another node is running a lifecycle command (${name}); try again`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const renewal = setInterval(() => void this.holdLease(name, ttlMs).catch(this.options.onError), ttlMs / 3);
    renewal.unref();
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.releaseLease(name).catch(this.options.onError);
    }
  }

  productionQueues(context: QueueContext): ProductionQueues {
    return new ClaimedQueues(this.store, this.nodeId, this.leaseMs, context);
  }

  private async register(): Promise<void> {
    await this.cluster.registerNode({ nodeId: this.nodeId, host: hostname(), pid: process.pid, apiUrl: this.options.apiUrl ?? null });
  }

  private async beat(): Promise<void> {
    try {
      if (!(await this.cluster.heartbeat(this.nodeId))) await this.register();
    } catch (error) {
      this.options.onError(error);
    }
  }

  /** Events from the other nodes go to the listeners; this node's own come back too and are dropped (it acted on them already). */
  private dispatch(payload: string | null): void {
    let event: ClusterEvent | null = null;
    if (payload !== null) {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(payload) as Envelope;
      } catch {
        this.options.onError(new ConveyorError('ERR_INTERNAL', `Unreadable cluster notification: ${payload.slice(0, 200)}`));
        return;
      }
      if (envelope.from === this.nodeId) return;
      event = envelope.event;
    }
    for (const listener of this.listeners) listener(event);
  }
}

class ClaimedQueues implements ProductionQueues {
  private sweeper: NodeJS.Timeout | null = null;
  private readonly queues = new Map<string, ClaimingQueue>();

  constructor(
    private readonly store: Store,
    private readonly nodeId: string,
    private readonly leaseMs: number,
    private readonly context: QueueContext,
  ) {}

  create(item: string, batch: number): ItemQueue {
    const queue = new ClaimingQueue(this.store, {
      namespace: this.context.namespace,
      target: item,
      nodeId: this.nodeId,
      leaseMs: this.leaseMs,
      batch,
      pollMs: 1000,
      onError: this.context.onError,
    });
    // The latest queue of an item (a restarted item gets a new one) is where its hand-offs go.
    this.queues.set(item, queue);
    return queue;
  }

  /**
   * Committed before any node may claim it: the claim reads committed rows. When the target's queue
   * here has room and nothing older waits in the store, the request is written already claimed by
   * this node and handed over when pushed (claiming-queue.ts), possibly while its row is still being
   * committed (`accepted` says when it is; its outcome is written after it). A crash before that
   * commit loses a request nobody was told about: its parent, unfinished too, sends it again. A request with a parent, or one whose
   * sender waits only for its reply (`lazy`), may be acknowledged before its commit reached the disk
   * (postgres-writes.ts): a PostgreSQL crash that loses it also loses everything that came of it —
   * the parent's outcome, or the outcome the reply waits for — and what was lost runs again.
   */
  async insert(request: NewMessage, options: { lazy?: boolean } = {}): Promise<{ id: number; accepted: Promise<void> }> {
    const queue = this.queues.get(request.target);
    const insertClaimed = this.store.messages.insertClaimed?.bind(this.store.messages);
    if (queue !== undefined && insertClaimed !== undefined && queue.reserveLocal()) {
      let inserted: { ids: number[]; committed: Promise<void> };
      try {
        inserted = await insertClaimed([request], this.nodeId, this.leaseMs, options);
      } catch (error) {
        queue.cancelReservation();
        throw error;
      }
      const id = inserted.ids[0]!;
      queue.expectHandoff(id);
      return { id, accepted: inserted.committed };
    }
    const [id] = await this.store.messages.insert([request]);
    return { id: id as number, accepted: Promise.resolve() };
  }

  /**
   * Unfinished requests stay in the shared queue and are claimed like new ones; what dead nodes
   * held comes back when its lease expires: every node sweeps expired leases now and then.
   */
  async resume(hosts: ReadonlyMap<string, { queue: ItemQueue }>): Promise<void> {
    const sweep = async () => {
      try {
        if ((await this.store.messages.releaseExpired(this.context.namespace, Date.now())) > 0) {
          for (const host of hosts.values()) host.queue.wake();
        }
      } catch (error) {
        this.context.onError(error);
      }
    };
    await sweep();
    for (const host of hosts.values()) host.queue.wake();
    this.sweeper = setInterval(() => void sweep(), Math.max(500, this.leaseMs / 2));
    this.sweeper.unref();
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }
}
