/**
 * The one place that decides how a server coordinates with others: as one node of several when
 * its store can be shared (PostgreSQL), alone otherwise. The server's composition calls it once.
 */
import type { Store } from '../store/store.ts';
import type { Coordinator } from './coordinator.ts';
import { PostgresCoordinator } from './postgres-coordinator.ts';
import { SingleProcessCoordinator } from './single-process-coordinator.ts';

export interface CoordinatorOptions {
  /** Lease of a claimed request (default 30 s): a dead node's requests wait this long. */
  leaseMs?: number;
  /** Where background problems go (missed heartbeats, unreadable notifications). */
  onError: (error: unknown) => void;
}

export function coordinatorFor(store: Store, options: CoordinatorOptions): Coordinator {
  if (store.capabilities.multiNode && store.cluster) {
    return new PostgresCoordinator(store, store.cluster, { leaseMs: options.leaseMs ?? 30_000, onError: options.onError });
  }
  return new SingleProcessCoordinator(store);
}
