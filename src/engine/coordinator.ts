/**
 * The seam between one server and the others that may share its store. The engine talks only to
 * this interface; whether it runs alone (single-process-coordinator.ts, SQLite or a lone
 * PostgreSQL server) or as one node of several (postgres-coordinator.ts) is decided once, where
 * the engine is composed (choose-coordinator.ts), and the engine never asks which one it has.
 */
import type { CommitOptions, NewMessage, NodeRecord } from '../store/store.ts';
import type { EventLog } from './event-log.ts';
import type { ItemQueue } from './work-queue.ts';

/** What nodes tell each other: queued work, replies for a caller elsewhere, a queue suspended or resumed, lifecycle commands. */
export type ClusterEvent =
  | { type: 'wake'; namespace: string; target: string }
  | { type: 'reply'; namespace: string; requestId: number; responseId: number | null; error: string | null }
  | { type: 'queue'; namespace: string; item: string; suspended: boolean }
  | { type: 'control'; namespace: string; op: ControlOp; origin: string };

export type ControlOp =
  | { command: 'start'; production: string }
  | { command: 'stop' | 'kill' | 'restart' | 'update' }
  | { command: 'component'; action: 'start' | 'stop' | 'restart'; item: string };

export interface Coordinator {
  /** This server's identity among the nodes (and the owner of the leases it takes). */
  readonly nodeId: string;
  /**
   * Whether a production outlives this server's shutdown: true when other nodes keep running it
   * (the store keeps saying running), false when a shutdown is a stop of the production.
   */
  readonly productionsOutliveShutdown: boolean;

  start(): Promise<void>;
  stop(): Promise<void>;
  /** Called with every event from other nodes, and with null when some may have been missed. */
  listen(listener: (event: ClusterEvent | null) => void): () => void;
  /** Tells the other nodes; nobody to tell on a single process. */
  announce(event: ClusterEvent): void;
  /** Nodes whose heartbeat is recent, this one included. */
  liveNodes(): Promise<NodeRecord[]>;
  /** Every registered node, for `GET /nodes`. */
  listNodes(): Promise<NodeRecord[]>;
  /** Whether this node holds the named lease now (one node at a time, taken over when it dies). */
  holdLease(name: string, ttlMs: number): Promise<boolean>;
  /** Runs `work` while no other node runs work under the same name. */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** How the requests of a production's items are queued, accepted and resumed. */
  productionQueues(context: QueueContext): ProductionQueues;
}

export interface QueueContext {
  namespace: string;
  log: EventLog;
  onError: (error: unknown) => void;
}

/** The queues of one running production. */
export interface ProductionQueues {
  /** The queue of one item; `batch` is how many requests its jobs may take at once. */
  create(item: string, batch: number): ItemQueue;
  /**
   * Records a new request. Its id is known when this resolves; `accepted` resolves once its row is
   * committed (from then on it cannot be lost), possibly after it was handed to its target.
   * `lazy`: a store that can may commit the row with the next commit rather than on its own.
   */
  insert(request: NewMessage, options?: CommitOptions): Promise<{ id: number; accepted: Promise<void> }>;
  /**
   * Called once the items' queues exist and before the items start: puts back the requests earlier
   * runs (here or on a dead node) left unfinished.
   */
  resume(queues: ReadonlyMap<string, { queue: ItemQueue }>): Promise<void>;
  /** The production ended: no more resuming. */
  close(): void;
}
