/**
 * Queue depths as an operator means them: requests waiting, and requests in progress. On a single
 * node a request a job is handling is still `queued` in the store (only its outcome is written), so
 * the store's figures count it as waiting; the running item hosts know how many they hold in hand
 * and move them to in progress. Claimed requests (several nodes) are `delivered` already.
 */
import type { QueueDepth, Store } from '../store/store.ts';
import type { ItemQueue } from './work-queue.ts';

export interface QueueHolder {
  readonly queue: Pick<ItemQueue, 'takenStayQueued'>;
  readonly requestsInHand: number;
}

export function withRequestsInHand(depths: QueueDepth[], hosts: ReadonlyMap<string, QueueHolder> | undefined): QueueDepth[] {
  if (!hosts) return depths;
  return depths.map((depth) => {
    const host = hosts.get(depth.target);
    if (!host?.queue.takenStayQueued) return depth;
    const inHand = Math.min(host.requestsInHand, depth.queued);
    return { ...depth, queued: depth.queued - inHand, delivered: depth.delivered + inHand };
  });
}

/** A namespace's queue depths from the store, as an operator means them: every reader of the figures takes them from here. */
export async function operatorQueueDepths(
  store: Pick<Store, 'messages'>,
  namespace: string,
  hosts: ReadonlyMap<string, QueueHolder> | undefined,
): Promise<QueueDepth[]> {
  return withRequestsInHand(await store.messages.queueDepths(namespace), hosts);
}
