/**
 * A production while it runs in a namespace: its item hosts, the routing of messages between them
 * (persist, then queue), the replies callers wait for, recovery of unfinished messages on start,
 * and Update (apply a changed definition by touching only the changed items).
 */
import type { Reply } from '../core/component.ts';
import { ConveyorError, errorText } from '../core/errors.ts';
import type { MessageBody, StoredMessage } from '../core/message.ts';
import type { ItemDefinition, ProductionDefinition } from '../core/production.ts';
import type { RoutingRule } from '../core/routing-rule.ts';
import type { NewMessage, Store } from '../store/store.ts';
import type { Resolver } from './component-resolver.ts';
import type { EventLog } from './event-log.ts';
import { ItemHost } from './item-host.ts';
import type { MessageRouter, Origin, Outcome, SendRequestOptions, SentRequest } from './message-router.ts';
import type { Coordinator, ProductionQueues } from './coordinator.ts';
import type { ItemTrouble, MonitoredProduction, NamespaceMonitor } from './monitor/namespace-monitor.ts';
import type { ItemQueue } from './work-queue.ts';

export interface RunningProductionOptions {
  /** How long stop waits for queues to drain before stopping the items anyway. */
  drainTimeoutMs: number;
  graceMs: number;
  /** How long one job may take to start (worker, import, on_init); default 60 s. */
  initTimeoutMs?: number;
  /** The namespace's monitor: live figures of the items (kept across runs) and alerts. */
  monitor: NamespaceMonitor;
  /** The DTL of the production's namespace. */
  transforms: {
    transformMessage(name: string, body: MessageBody, options?: { sqlHost?: string; aux?: unknown }): Promise<MessageBody>;
    importSchema(request: { path: string; package: string; name: string }): Promise<void>;
  };
  /** The routing rules of the production's namespace (the routing engine); absent: none offered. */
  rules?: { routingRule(name: string): Promise<RoutingRule> };
  /** This server among the nodes sharing the store: queues, leases, notifications. */
  coordinator: Coordinator;
  onError: (error: unknown) => void;
}

interface Waiter {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

export class RunningProduction implements MessageRouter, MonitoredProduction {
  readonly hosts = new Map<string, ItemHost>();
  /** source → target pairs seen since start, for the connections graph. */
  readonly flows = new Set<string>();
  private readonly waiters = new Map<number, Waiter>();
  private dead = false;
  /** kill() ended it (dead also covers a stop). */
  private wasKilled = false;
  /** A stop (or a kill) of the production is waiting: no item may begin to start any more. */
  private stopRequested = false;
  private markKilled: () => void = () => undefined;
  /** Settles when kill() ends the production: a stop still waiting for its items gives up then. */
  readonly whenKilled = new Promise<void>((resolve) => {
    this.markKilled = resolve;
  });
  /** Per item: the tail of the commands on it (restart, start, stop, update), run one at a time. */
  private readonly itemCommands = new Map<string, Promise<unknown>>();
  private readonly queues: ProductionQueues;
  /** Items whose queue an operator suspended (read at start, kept in step by setQueueSuspended). */
  private readonly suspendedItems = new Set<string>();

  constructor(
    private readonly store: Store,
    readonly namespace: string,
    public definition: ProductionDefinition,
    private readonly resolver: Resolver,
    readonly log: EventLog,
    private readonly options: RunningProductionOptions,
  ) {
    this.queues = options.coordinator.productionQueues({ namespace, log, onError: options.onError });
  }

  get name(): string {
    return this.definition.name;
  }

  async start(): Promise<void> {
    // Before any queue exists: a suspended queue must not deliver even its first request.
    for (const suspension of await this.store.controls.suspendedQueues(this.namespace)) this.suspendedItems.add(suspension.item);
    for (const item of this.definition.items) this.hosts.set(item.name, await this.createHost(item));
    // What the last run left is read before any item starts: once services poll, new messages
    // would look unfinished too.
    await this.queues.resume(this.hosts);
    // Killed while the items were being prepared, or a stop waits: start none of them.
    if (this.dead || this.stopRequested) return;
    await Promise.all([...this.hosts.values()].map((host) => host.start()));
  }

  /** A request for `target` was queued on another node. */
  wake(target: string): void {
    this.hosts.get(target)?.queue.wake();
  }

  /** Another node finished a request a caller here waits for. */
  async deliverRemoteReply(requestId: number, responseId: number | null, error: string | null): Promise<void> {
    const waiter = this.waiters.get(requestId);
    if (!waiter) return;
    this.waiters.delete(requestId);
    if (error !== null) return waiter.reject(new ConveyorError('ERR_COMPONENT_FAILED', error));
    if (responseId === null) return waiter.resolve(null);
    const response = await this.store.messages.get(this.namespace, responseId);
    waiter.resolve(response?.body ?? null);
  }

  /** After missed notifications: settle the waits whose requests finished meanwhile. */
  async recheckWaiters(): Promise<void> {
    for (const requestId of [...this.waiters.keys()]) {
      const request = await this.store.messages.get(this.namespace, requestId);
      if (!request || request.status === 'queued' || request.status === 'delivered') continue;
      if (request.status !== 'completed') {
        await this.deliverRemoteReply(requestId, null, request.error ?? `Request ${requestId} ended as ${request.status}`);
        continue;
      }
      const response = (await this.store.messages.session(this.namespace, request.sessionId)).find(
        (m) => m.kind === 'response' && m.correspondingId === requestId,
      );
      await this.deliverRemoteReply(requestId, response?.id ?? null, null);
    }
  }

  /** Whether this node runs the poll of a service now: one node at a time holds its lease. */
  mayPoll(item: string, intervalMs: number): Promise<boolean> {
    return this.options.coordinator.holdLease(`poller:${this.namespace}/${this.name}/${item}`, Math.max(3 * intervalMs, 3000));
  }

  createQueue(item: string, batch: number): ItemQueue {
    const queue = this.queues.create(item, batch);
    if (this.suspendedItems.has(item)) queue.setSuspended(true);
    return queue;
  }

  /** An operator suspended or resumed an item's queue (here or on another node). */
  setQueueSuspended(item: string, suspended: boolean): void {
    if (suspended) this.suspendedItems.add(item);
    else this.suspendedItems.delete(item);
    this.hosts.get(item)?.queue.setSuspended(suspended);
  }

  /** After missed notifications: the suspended queues as the store has them now. */
  async refreshSuspensions(): Promise<void> {
    const suspended = new Set((await this.store.controls.suspendedQueues(this.namespace)).map((suspension) => suspension.item));
    for (const item of new Set([...this.suspendedItems, ...suspended])) this.setQueueSuspended(item, suspended.has(item));
  }

  async send(origin: Origin, target: string, body: MessageBody, options: SendRequestOptions): Promise<SentRequest> {
    if (this.dead) throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Production ${this.name} is not running`);
    const host = this.hosts.get(target);
    if (!host) {
      throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item named '${target}' in production ${this.name}`, {
        hint: `Known items: ${[...this.hosts.keys()].join(', ')}`,
      });
    }
    const request: NewMessage = {
      namespace: this.namespace,
      sessionId: origin.sessionId,
      parentId: origin.parentId,
      correspondingId: null,
      kind: 'request',
      source: origin.source,
      target,
      responseRequired: options.responseRequired,
      status: 'queued',
      priority: options.priority ?? 0,
      description: options.description,
      body,
    };
    if (origin.traceParent) request.traceParent = origin.traceParent;
    // Callers that must know the request is accepted wait for `accepted`: the request may be
    // handed to its target while its row is being committed (its id was assigned ahead).
    const { id, accepted } = await this.queues.insert(request, { lazy: options.replyOnly === true });
    const now = Date.now();
    // The queued message as the store now holds it, built here instead of read back. Field by field,
    // not as a spread of `request`: V8 gave the spread's copies a layout that kept every message's
    // young objects (its body, its reply's promises) alive across two scavenges, so each one moved
    // them to the old space — about 2 MB per scavenge on the chains of the benchmark, 5–25 ms pauses
    // several times a second (docs/benchmarks.md, issue 16, third session).
    const message: StoredMessage = {
      namespace: request.namespace,
      id,
      sessionId: origin.sessionId ?? id,
      parentId: request.parentId,
      correspondingId: null,
      kind: 'request',
      source: request.source,
      target,
      responseRequired: request.responseRequired,
      status: 'queued',
      priority: request.priority,
      description: request.description,
      error: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      leaseOwner: null,
      leaseUntil: null,
      body,
    };
    if (request.traceParent) message.traceParent = request.traceParent;
    // Alert requests go to Ens.Alert from any item: no flow of the production's graph (as IoP leaves them out).
    if (options.alert !== true) this.flows.add(`${origin.source}\u0000${target}`);
    this.options.monitor.exchanged(options.alert === true ? null : origin.source, target, now);
    const reply = options.responseRequired ? new Promise<Reply>((resolve, reject) => this.waiters.set(message.id, { resolve, reject })) : null;
    // Nobody may be left holding an unobserved rejection if the caller stops listening (timeouts).
    reply?.catch(() => undefined);
    accepted.catch((error: unknown) => {
      const waiter = this.waiters.get(message.id);
      this.waiters.delete(message.id);
      waiter?.reject(error instanceof Error ? error : new Error(String(error)));
    });
    if (this.dead) return { message, reply, accepted };
    // Other nodes are woken only when no job here is idle to claim the request at once.
    const idleHere = host.queue.hasIdleJob;
    host.queue.push(message);
    if (!idleHere) this.options.coordinator.announce({ type: 'wake', namespace: this.namespace, target });
    return { message, reply, accepted };
  }

  transform(name: string, body: MessageBody, options: { sqlHost?: string; aux?: unknown } = {}): Promise<MessageBody> {
    return this.options.transforms.transformMessage(name, body, options);
  }

  routingRule(name: string): Promise<RoutingRule> {
    if (!this.options.rules) return Promise.reject(new ConveyorError('ERR_CONFIG', `Namespace ${this.namespace} offers no routing rules here`));
    return this.options.rules.routingRule(name);
  }

  importSchema(path: string, packageName: string, name: string): Promise<void> {
    return this.options.transforms.importSchema({ path, package: packageName, name });
  }

  countOutcome(item: string, ok: boolean, durationMs: number): void {
    this.options.monitor.handled(item, ok, durationMs);
  }

  reportTrouble(item: string, trouble: ItemTrouble): void {
    this.options.monitor.trouble(item, trouble);
  }

  /** An alert request from `source` to the production's Ens.Alert item, accepted once committed. */
  async sendAlert(source: string, body: MessageBody): Promise<void> {
    const sent = await this.send({ source, parentId: null, sessionId: null }, 'Ens.Alert', body, {
      responseRequired: false,
      description: `Alert from ${source}`,
      alert: true,
    });
    await sent.accepted;
  }

  async complete(request: StoredMessage, outcome: Outcome): Promise<void> {
    if (this.dead) return;
    // A caller here that is itself handling a request (this one has a parent) is answered without
    // waiting for this commit, whose rows ride in the next one (its own outcome's at the latest):
    // after a crash its request, unfinished, runs again and sends anew, so durability before the
    // reply protected nothing there. A session's first request answers a caller outside the engine
    // (a service's input, a test call): its outcome is durable before the reply. One commit per
    // round trip instead of one per hop. Only where the store can defer a commit (`insertEager`).
    const eager = this.store.messages.insertEager?.bind(this.store.messages);
    const lazy = request.parentId !== null && this.waiters.has(request.id) && eager !== undefined;
    const writes: Array<Promise<unknown>> = [];
    let responseInsert: Promise<number[]> | null = null;
    if ('response' in outcome && outcome.response !== null) {
      const response: NewMessage = {
        namespace: this.namespace,
        sessionId: request.sessionId,
        parentId: request.parentId,
        correspondingId: request.id,
        kind: 'response',
        source: request.target,
        target: request.source,
        responseRequired: false,
        status: 'completed',
        priority: request.priority,
        description: '',
        body: outcome.response,
      };
      if (lazy) {
        const inserted = eager([response], { lazy: true });
        responseInsert = inserted.committed.then(() => inserted.ids);
      } else responseInsert = this.store.messages.insert([response]);
      writes.push(responseInsert);
    }
    writes.push(
      this.store.messages.update(['error' in outcome ? { id: request.id, status: 'error', error: outcome.error } : { id: request.id, status: 'completed' }], {
        lazy,
      }),
    );
    if (lazy) {
      void Promise.all(writes).catch((error: unknown) => this.options.onError(error));
    } else await Promise.all(writes);
    const waiter = this.waiters.get(request.id);
    if (!waiter) {
      // The caller may wait on another node.
      if (request.responseRequired) {
        const responseId = responseInsert ? ((await responseInsert)[0] ?? null) : null;
        this.options.coordinator.announce({
          type: 'reply',
          namespace: this.namespace,
          requestId: request.id,
          responseId,
          error: 'error' in outcome ? outcome.error : null,
        });
      }
      return;
    }
    this.waiters.delete(request.id);
    if ('error' in outcome) waiter.reject(new ConveyorError('ERR_COMPONENT_FAILED', outcome.error));
    else waiter.resolve(outcome.response);
  }

  /** Stops input, lets queues drain (bounded; suspended queues keep theirs), then stops every item. Returns how many stay queued. */
  async stop(): Promise<number> {
    this.stopRequested = true;
    for (const host of this.hosts.values()) host.stopInput();
    const deadline = Date.now() + this.options.drainTimeoutMs;
    while (
      Date.now() < deadline &&
      [...this.hosts.values()].some((h) => h.state === 'running' && ((h.queue.depth > 0 && !h.queue.suspended) || h.inFlight > 0))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Every item gets its grace time at once, so a stop takes the longest item's time, not the sum.
    const queued = await Promise.all([...this.hosts.values()].map((host) => host.stop()));
    this.finish('stopped');
    return queued.reduce((sum, messages) => sum + messages.length, 0);
  }

  kill(): void {
    this.dead = true;
    this.wasKilled = true;
    for (const host of this.hosts.values()) host.kill();
    this.finish('killed');
    this.markKilled();
  }

  /** A stop is waiting: items still starting (a start or an item restart in on_init) give up now. */
  abortStarting(): void {
    this.stopRequested = true;
    for (const host of this.hosts.values()) host.abortStarting();
  }

  /** Whether kill() ended this production (a command still under way must not go on with it). */
  get killed(): boolean {
    return this.wasKilled;
  }

  /**
   * A test call to `item` got no reply in time. The request is recorded as failed (it must not run
   * again at the next start) and its caller released; when a job of the item is stuck on it, the
   * item's workers are ended and the item goes to `error`. Returns the whole story as one text.
   */
  async abandonRequest(item: string, messageId: number, reason: string): Promise<string> {
    this.waiters.delete(messageId);
    const host = this.hosts.get(item);
    // Still queued: taken out of the item's work first, so it cannot run after it is marked failed.
    const stuck = host ? !host.abandon(messageId) : false;
    const text = stuck
      ? `${reason}; its worker was ended and the item is in error until it is restarted`
      : `${reason}; it was still queued behind other messages and is marked failed`;
    await this.store.messages.update([{ id: messageId, status: 'error', error: text }]);
    if (stuck) host?.fail(text);
    else this.log.write('Warning', text, { configName: item, messageId, sessionId: messageId });
    return text;
  }

  /**
   * Apply a new definition: start added items, stop removed ones, restart changed ones. The items
   * change at the same time (each under its own item lock), so the update takes as long as its
   * slowest item, not the sum; a stop that comes meanwhile makes the items still starting give up.
   */
  async update(next: ProductionDefinition): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    const wanted = new Map(next.items.map((item) => [item.name, item]));
    const removed = [...this.hosts.keys()].filter((name) => !wanted.has(name));
    await Promise.all(
      removed.map((name) =>
        this.onItem(name, async () => {
          await this.hosts.get(name)?.stop();
          this.hosts.delete(name);
        }),
      ),
    );
    const outcomes = await Promise.all(
      next.items.map(async (item) => {
        // An item left as it is waits for no command on it (one stuck in on_init holds up nothing).
        if (await this.unchanged(item)) return 'kept' as const;
        return this.onItem(item.name, async () => {
          this.assertUpdating();
          const current = this.hosts.get(item.name);
          if (!current) {
            const host = await this.createHost(item);
            this.hosts.set(item.name, host);
            await this.startHost(host);
            return 'added' as const;
          }
          if (await this.unchanged(item)) return 'kept' as const;
          await this.replaceHost(current, item);
          return 'restarted' as const;
        });
      }),
    );
    this.assertUpdating();
    this.definition = next;
    const changed = (what: 'added' | 'restarted') => next.items.filter((_, index) => outcomes[index] === what).map((item) => item.name);
    return { added: changed('added'), removed, restarted: changed('restarted') };
  }

  /** An update must not go on once a stop or kill of the production came. */
  private assertUpdating(): void {
    if (!this.dead && !this.stopRequested) return;
    throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Production ${this.name} was ${this.wasKilled ? 'killed' : 'stopped'} during the update`);
  }

  /** Whether the running item already has this definition and the same code. */
  private async unchanged(item: ItemDefinition): Promise<boolean> {
    const current = this.hosts.get(item.name);
    if (!current || !sameItem(current.item, item)) return false;
    return (await this.resolveSafely(item))?.fingerprint === current.component.fingerprint;
  }

  /**
   * Stops and starts one item, keeping its queue. Fails, naming the reason, when it did not start.
   * `andThen` (a test call's send) runs right after, still in the item's command order: another
   * command on the item (a concurrent test's restart) cannot stop it in between, and the request it
   * queues is carried over by that next restart. It must not wait on user code (the order is held).
   */
  async restartItem(name: string): Promise<void>;
  async restartItem<T>(name: string, andThen: () => Promise<T>): Promise<T>;
  async restartItem<T>(name: string, andThen?: () => Promise<T>): Promise<T | undefined> {
    this.requireHost(name);
    return this.onItem(name, async () => {
      await this.replaceHost(this.requireHost(name), this.requireHost(name).item);
      this.assertStarted(name, 'restart');
      return andThen?.();
    });
  }

  async startItem(name: string): Promise<void> {
    this.requireHost(name);
    await this.onItem(name, async () => {
      const host = this.requireHost(name);
      if (host.state !== 'running') await this.replaceHost(host, { ...host.item, enabled: true });
    });
    this.assertStarted(name, 'start');
  }

  /**
   * Commands on one item run one after another, and only they wait for each other: an item whose
   * on_init takes its time holds up no command on another item (the Director's order is not held).
   */
  private onItem<T>(name: string, command: () => Promise<T>): Promise<T> {
    const result = (this.itemCommands.get(name) ?? Promise.resolve()).then(command, command);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.itemCommands.set(name, tail);
    void tail.then(() => {
      if (this.itemCommands.get(name) === tail) this.itemCommands.delete(name);
    });
    return result;
  }

  private assertStarted(name: string, action: 'start' | 'restart'): void {
    const host = this.requireHost(name);
    if (host.state === 'error') {
      throw new ConveyorError('ERR_COMPONENT_FAILED', `Item ${name} did not ${action}: ${host.error ?? 'it is in error'}`, {
        hint: 'The event log has the details; fix the component and restart it',
      });
    }
    // A stop of the item or of the production came while it started.
    if (host.state === 'stopped') {
      throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Item ${name} did not ${action}: ${host.error ?? 'it was stopped while it started'}`);
    }
  }

  async stopItem(name: string): Promise<void> {
    this.requireHost(name);
    await this.onItem(name, async () => {
      const host = this.requireHost(name);
      const queued = await host.stop();
      for (const message of queued) host.queue.push(message);
    });
  }

  /** Pushes one input into a business service (non-polling services, adapters, benchmarks). */
  processInput(service: string, input: Reply): Promise<{ result: Reply; sessionId: number | null }> {
    return this.requireHost(service).processInput(input);
  }

  requireHost(name: string): ItemHost {
    const host = this.hosts.get(name);
    if (!host) throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item named '${name}' in production ${this.name}`);
    return host;
  }

  private async replaceHost(current: ItemHost, item: ItemDefinition): Promise<void> {
    const queued = await current.stop();
    const host = await this.createHost(item);
    this.hosts.set(item.name, host);
    for (const message of queued) host.queue.push(message);
    await this.startHost(host);
  }

  /** Starts a host unless a stop or kill of the production came first (then it stays stopped). */
  private async startHost(host: ItemHost): Promise<void> {
    if (this.dead || this.stopRequested) return;
    await host.start();
    // Killed or being stopped while the item started: its jobs must not outlive the production.
    if (this.dead || this.stopRequested) host.kill();
  }

  private async createHost(item: ItemDefinition): Promise<ItemHost> {
    const component = await this.resolveSafely(item);
    const options = { actorPoolSize: this.definition.actorPoolSize, graceMs: this.options.graceMs, initTimeoutMs: this.options.initTimeoutMs ?? 60_000 };
    if (component) return new ItemHost(this, item, component, options);
    // An unknown class puts this item in error; the rest of the production still runs.
    const broken = new ItemHost(this, item, unresolvable(item.classname), options);
    return broken;
  }

  private async resolveSafely(item: ItemDefinition) {
    try {
      return await this.resolver.resolve(item.classname, { production: this.name, item });
    } catch (error) {
      // A disabled item runs nothing, so its unknown class is no error (yet): enabling it reports it.
      if (item.enabled) this.log.write('Error', `Item ${item.name}: ${errorText(error)}`, { configName: item.name });
      return null;
    }
  }

  private finish(how: 'stopped' | 'killed'): void {
    this.queues.close();
    this.dead = true;
    const error = new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `Production ${this.name} was ${how} before the reply came`);
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
  }
}

function sameItem(a: ItemDefinition, b: ItemDefinition): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function unresolvable(classname: string) {
  return {
    kind: 'operation' as const,
    polling: false,
    fingerprint: 'unresolved',
    factory: {
      create: () => {
        throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Class ${classname} cannot be run`);
      },
    },
  };
}
