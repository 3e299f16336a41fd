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

export class PostgresCoordinator implements Coordinator {
  readonly nodeId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** The other nodes keep running the productions when this one shuts down. */
  readonly productionsOutliveShutdown = true;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private listeners = new Set<(event: ClusterEvent | null) => void>();
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

  announce(event: ClusterEvent): void {
    this.cluster.notify(channel, JSON.stringify(event)).catch(this.options.onError);
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

  private dispatch(payload: string | null): void {
    let event: ClusterEvent | null = null;
    if (payload !== null) {
      try {
        event = JSON.parse(payload) as ClusterEvent;
      } catch {
        this.options.onError(new ConveyorError('ERR_INTERNAL', `Unreadable cluster notification: ${payload.slice(0, 200)}`));
        return;
      }
    }
    for (const listener of this.listeners) listener(event);
  }
}

class ClaimedQueues implements ProductionQueues {
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly nodeId: string,
    private readonly leaseMs: number,
    private readonly context: QueueContext,
  ) {}

  create(item: string, batch: number): ItemQueue {
    return new ClaimingQueue(this.store, {
      namespace: this.context.namespace,
      target: item,
      nodeId: this.nodeId,
      leaseMs: this.leaseMs,
      batch,
      pollMs: 1000,
      onError: this.context.onError,
    });
  }

  /** Committed before any node may claim it: the claim reads committed rows. */
  async insert(request: NewMessage): Promise<{ id: number; accepted: Promise<void> }> {
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
