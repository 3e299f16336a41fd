/**
 * The engine of one platform instance: one namespace handle (Director, DTL) per namespace, and the
 * engine-wide operations. The HTTP API (and through it the CLI and the portal) calls only this:
 * `engine.namespace(name)` checks the namespace once and gives every operation on it.
 */
import { ConveyorError } from '../core/errors.ts';
import { TransformCache } from '../dtl/index.ts';
import type { Store } from '../store/store.ts';
import { coordinatorFor } from './choose-coordinator.ts';
import { ComponentResolver } from './component-resolver.ts';
import type { ClusterEvent, Coordinator } from './coordinator.ts';
import { Director } from './director.ts';
import type { RunningProduction } from './running-production.ts';
import { DtlService } from './dtl-service.ts';
import { RuleService } from './rule-service.ts';
import { pythonRunner } from './dtl-python.ts';
import { EventLog } from './event-log.ts';
import { NamespaceHandle } from './namespace-handle.ts';
import type { EngineOperations, NodeInfo } from './namespace-operations.ts';
import { SqlHosts } from './sql-hosts/sql-hosts.ts';
import { NamespaceRetention } from './retention/namespace-retention.ts';
import { RetentionRunner, type RetentionRunnerOptions } from './retention/retention-runner.ts';

export interface EngineOptions {
  /** Python interpreter for workers (default: CONVEYOR_PYTHON or python3). */
  interpreter?: string;
  /** Production name → its own interpreter or virtual environment (src/engine/item-python.ts). */
  pythonByProduction?: Readonly<Record<string, string>>;
  drainTimeoutMs?: number;
  graceMs?: number;
  /**
   * How this server works with others sharing its store; the server's composition passes it.
   * Default: the one coordinatorFor() picks for the store.
   */
  coordinator?: Coordinator;
  /** For the default coordinator: lease of a claimed request (default 30 s). */
  leaseMs?: number;
  /** Where engine-level problems go (failed log writes, background errors). */
  onBackgroundError?: (error: unknown) => void;
  /** The background run of the namespaces' retention policies (docs/operations.md, Retention). */
  retention?: Omit<RetentionRunnerOptions, 'onError'>;
  /** The named read-only SQL connections `<sql>` in transforms uses (conveyor.yaml `sqlHosts`; none by default). */
  sqlHosts?: SqlHosts;
}

export class Engine implements EngineOperations {
  /** This server among the nodes sharing its store (alone on SQLite). */
  readonly coordinator: Coordinator;
  private readonly handles = new Map<string, NamespaceHandle>();
  /** Compiled transforms of every namespace (keyed by namespace, name and version). */
  private readonly transformCache = new TransformCache();
  private readonly runPython: ReturnType<typeof pythonRunner>;
  private readonly retention: RetentionRunner;

  private constructor(
    private readonly store: Store,
    private readonly options: EngineOptions,
  ) {
    this.runPython = pythonRunner(options.interpreter);
    this.coordinator =
      options.coordinator ??
      coordinatorFor(store, { ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }), onError: (error) => this.backgroundError(error) });
    this.retention = new RetentionRunner(store, this.coordinator, { ...options.retention, onError: (error) => this.backgroundError(error) });
  }

  /** Opens the engine: joins the other nodes, troubled states after a crash, then AutoStart productions. */
  static async open(store: Store, options: EngineOptions = {}): Promise<Engine> {
    const engine = new Engine(store, options);
    engine.coordinator.listen((event) => engine.onClusterEvent(event));
    await engine.coordinator.start();
    for (const namespace of await store.namespaces.list()) {
      const director = engine.handle(namespace).director;
      await director.recoverState();
      const autoStart = (await store.productions.list(namespace)).find((p) => p.autoStart);
      if (autoStart) await director.start(autoStart.name).catch((error) => engine.backgroundError(error));
    }
    engine.retention.start();
    return engine;
  }

  /** Stops every namespace's production at once; each gets `budgetMs` before it is killed. */
  async close(budgetMs?: number): Promise<void> {
    await this.retention.stop();
    await Promise.all([...this.handles.values()].map((handle) => handle.director.shutdown(budgetMs)));
    await this.coordinator.stop();
  }

  /**
   * The runtime of the production running in a namespace, or null. For code that drives a
   * production from inside the server process (benchmarks, embedding): pushing input into a
   * service, sending as a pseudo-item. Not part of the management façade.
   */
  runningProduction(namespace: string): RunningProduction | null {
    return this.handles.get(namespace)?.director.running ?? null;
  }

  /** The nodes serving this store (this server alone unless several share a PostgreSQL store). */
  async nodes(): Promise<NodeInfo[]> {
    const self = this.coordinator.nodeId;
    return (await this.coordinator.listNodes()).map((node) => ({
      nodeId: node.nodeId,
      host: node.host,
      pid: node.pid,
      self: node.nodeId === self,
      silentMs: node.silentMs,
    }));
  }

  /** What another node told: routed to the namespace it is about. */
  private onClusterEvent(event: ClusterEvent | null): void {
    if (event === null) {
      // Notifications may have been missed: look for queued work and finished replies.
      for (const { director } of this.handles.values()) {
        director.running?.recheckWaiters().catch((error) => this.backgroundError(error));
        director.running?.refreshSuspensions().catch((error) => this.backgroundError(error));
        for (const host of director.running?.hosts.values() ?? []) host.queue.wake();
      }
      return;
    }
    const director = this.handles.get(event.namespace)?.director;
    if (!director) return;
    if (event.type === 'wake') director.running?.wake(event.target);
    else if (event.type === 'queue') director.running?.setQueueSuspended(event.item, event.suspended);
    else if (event.type === 'reply')
      director.running?.deliverRemoteReply(event.requestId, event.responseId, event.error).catch((error) => this.backgroundError(error));
    else if (event.origin !== this.coordinator.nodeId) void director.applyRemote(event.op);
  }

  async namespaces(): Promise<string[]> {
    return this.store.namespaces.list();
  }

  async namespace(name: string): Promise<NamespaceHandle> {
    const known = this.handles.get(name);
    if (known) return known;
    if (!(await this.store.namespaces.exists(name))) {
      throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace ${name} does not exist`, {
        hint: `Known namespaces: ${(await this.store.namespaces.list()).join(', ')}`,
      });
    }
    return this.handle(name);
  }

  /** The handle of a namespace known to exist (made on first use). */
  private handle(namespace: string): NamespaceHandle {
    let handle = this.handles.get(namespace);
    if (!handle) {
      const log = new EventLog(this.store, namespace, (error) => this.backgroundError(error));
      const dtl = new DtlService(this.store, namespace, this.runPython, this.transformCache, (this.options.sqlHosts ?? new SqlHosts()).forNamespace(namespace));
      const rules = new RuleService(this.store, namespace);
      const director = new Director(
        this.store,
        namespace,
        new ComponentResolver(this.store, namespace, this.options.interpreter, this.options.pythonByProduction),
        log,
        {
          drainTimeoutMs: this.options.drainTimeoutMs ?? 10_000,
          graceMs: this.options.graceMs ?? 5_000,
          transforms: dtl,
          rules,
          coordinator: this.coordinator,
          onError: (error) => this.backgroundError(error),
        },
      );
      handle = new NamespaceHandle(
        director,
        dtl,
        this.store,
        this.options.interpreter,
        rules,
        new NamespaceRetention(this.store, namespace, this.retention.pacing, (name) => this.retention.lastRun(name)),
      );
      this.handles.set(namespace, handle);
    }
    return handle;
  }

  private backgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('conveyor engine:', error);
  }
}
