/**
 * The coordinator of a server that is alone on its store: it is the only live node, every lease is
 * its own, exclusive work runs directly and there is nobody to tell anything. Its queues live in
 * memory (the store stays the source of truth): a request is handed to its target while its row
 * commits, and what a previous run left unfinished is put back at the start.
 */
import { hostname } from 'node:os';
import type { CommitOptions, NewMessage, NodeRecord, Store } from '../store/store.ts';
import type { Coordinator, ProductionQueues, QueueContext } from './coordinator.ts';
import { WorkQueue, type ItemQueue } from './work-queue.ts';

export class SingleProcessCoordinator implements Coordinator {
  readonly nodeId = 'local';
  readonly productionsOutliveShutdown = false;
  private readonly startedAt = Date.now();

  constructor(private readonly store: Store) {}

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  listen(): () => void {
    return () => undefined;
  }

  announce(): void {}

  async liveNodes(): Promise<NodeRecord[]> {
    return [this.self()];
  }

  async listNodes(): Promise<NodeRecord[]> {
    return [this.self()];
  }

  async holdLease(): Promise<boolean> {
    return true;
  }

  exclusively<T>(_name: string, work: () => Promise<T>): Promise<T> {
    return work();
  }

  productionQueues(context: QueueContext): ProductionQueues {
    return new InMemoryQueues(this.store, context);
  }

  private self(): NodeRecord {
    const now = Date.now();
    return { nodeId: this.nodeId, host: hostname(), pid: process.pid, apiUrl: null, startedAt: this.startedAt, heartbeatAt: now, silentMs: 0 };
  }
}

class InMemoryQueues implements ProductionQueues {
  constructor(
    private readonly store: Store,
    private readonly context: QueueContext,
  ) {}

  create(): ItemQueue {
    return new WorkQueue();
  }

  async insert(request: NewMessage, options: CommitOptions = {}): Promise<{ id: number; accepted: Promise<void> }> {
    // The request is handed to its target while its row is being committed (the group commit keeps
    // the order, so everything the target writes about it commits with it or after it); callers
    // that must know it is accepted wait for `accepted`. A crash before the commit loses a request
    // nobody was told about: its parent, unfinished too, sends it again.
    // A lazy request (its caller waits for the reply only) commits with the next commit, at the
    // latest with its response: one commit per synchronous hop.
    const eager = this.store.messages.insertEager?.([request], options);
    if (eager) return { id: eager.ids[0] as number, accepted: eager.committed };
    const [id] = await this.store.messages.insert([request]);
    return { id: id as number, accepted: Promise.resolve() };
  }

  /**
   * Requeues what a previous run left unfinished (this server was the only one to run it). A
   * request whose parent is itself unfinished is discarded: the parent runs again and sends it
   * anew, so the child is not delivered twice.
   */
  async resume(hosts: ReadonlyMap<string, { queue: ItemQueue }>): Promise<void> {
    const { namespace, log } = this.context;
    const unfinished = await this.store.messages.unfinished(namespace);
    if (unfinished.length === 0) return;
    const open = new Set(unfinished.map((m) => m.id));
    const discard: number[] = [];
    let requeued = 0;
    for (const message of unfinished) {
      if (message.parentId !== null && open.has(message.parentId)) {
        discard.push(message.id);
        continue;
      }
      const host = hosts.get(message.target);
      if (!host) continue;
      host.queue.push(message);
      requeued++;
    }
    if (discard.length > 0)
      await this.store.messages.update(discard.map((id) => ({ id, status: 'discarded' as const, error: 'Sent again by its parent after a restart' })));
    log.write('Info', `Recovered ${requeued} unfinished message${requeued === 1 ? '' : 's'} (${discard.length} superseded by their parent)`);
  }

  close(): void {}
}
