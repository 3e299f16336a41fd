/**
 * This server as one node of a cluster sharing a PostgreSQL store: its identity, its heartbeat in
 * the node registry, and the one notification channel the nodes talk on — wake-ups for queued
 * requests, replies for callers waiting on another node, and lifecycle commands.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConveyorError } from '../core/errors.ts';
import type { ClusterRepository, NodeRecord } from '../store/store.ts';

export type ClusterEvent =
  | { type: 'wake'; namespace: string; target: string }
  | { type: 'reply'; namespace: string; requestId: number; responseId: number | null; error: string | null }
  | { type: 'control'; namespace: string; op: ControlOp; origin: string };

export type ControlOp =
  | { command: 'start'; production: string }
  | { command: 'stop' | 'kill' | 'restart' | 'update' }
  | { command: 'component'; action: 'start' | 'stop' | 'restart'; item: string };

export interface ClusterNodeOptions {
  heartbeatMs?: number;
  /** Lease of a claimed request; renewed at a third of it. */
  leaseMs?: number;
  apiUrl?: string | null;
  onError: (error: unknown) => void;
}

const channel = 'conveyor';

export class ClusterNode {
  readonly nodeId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private listeners = new Set<(event: ClusterEvent | null) => void>();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    private readonly cluster: ClusterRepository,
    private readonly options: ClusterNodeOptions,
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

  /** Called with every event from the cluster, and with null when some may have been missed. */
  listen(listener: (event: ClusterEvent | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(event: ClusterEvent): void {
    this.cluster.notify(channel, JSON.stringify(event)).catch(this.options.onError);
  }

  /** Nodes whose heartbeat is recent. */
  async liveNodes(): Promise<NodeRecord[]> {
    return (await this.cluster.listNodes()).filter((node) => node.silentMs < this.heartbeatMs * 3);
  }

  listNodes(): Promise<NodeRecord[]> {
    return this.cluster.listNodes();
  }

  /** Whether this node holds the named lease now (one node at a time, taken over when it dies). */
  holdLease(name: string, ttlMs: number): Promise<boolean> {
    return this.cluster.tryAcquireLease(name, this.nodeId, ttlMs);
  }

  async releaseLease(name: string): Promise<void> {
    await this.cluster.releaseLease(name, this.nodeId);
  }

  /**
   * Runs `work` while holding the named lease, so no other node runs work under the same name at
   * the same time. Waits (bounded) for a holder that is busy; a dead holder's lease expires.
   */
  async exclusively<T>(name: string, work: () => Promise<T>, waitMs = 10_000, ttlMs = 30_000): Promise<T> {
    const deadline = Date.now() + waitMs;
    while (!(await this.holdLease(name, ttlMs))) {
      if (Date.now() > deadline) throw new ConveyorError('ERR_PRODUCTION_BUSY', `Another node is running a lifecycle command (${name}); try again`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      return await work();
    } finally {
      await this.releaseLease(name).catch(this.options.onError);
    }
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
