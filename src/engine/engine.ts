/**
 * The engine of one platform instance: one namespace handle (Director, DTL) per namespace, and the
 * engine-wide operations. The HTTP API (and through it the CLI and the portal) calls only this:
 * `engine.namespace(name)` checks the namespace once and gives every operation on it.
 */
import { ConveyorError } from '../core/errors.ts';
import { TransformCache } from '../dtl/index.ts';
import type { LogQuery, MessageFilter, Store } from '../store/store.ts';
import type { ProductionDefinition } from '../core/production.ts';
import { coordinatorFor } from './choose-coordinator.ts';
import { ComponentResolver } from './component-resolver.ts';
import type { ClusterEvent, Coordinator } from './coordinator.ts';
import { Director } from './director.ts';
import type { RunningProduction } from './running-production.ts';
import { DtlService } from './dtl-service.ts';
import { pythonRunner } from './dtl-python.ts';
import { legacyDtl, type EngineApi, type LegacyDtlService } from './engine-api.ts';
import { EventLog } from './event-log.ts';
import type { PackageUpload } from './migration/package-swap.ts';
import { NamespaceHandle } from './namespace-handle.ts';
import type { EngineOperations, NodeInfo, TestRequest } from './namespace-operations.ts';

export interface EngineOptions {
  /** Python interpreter for workers (default: CONVEYOR_PYTHON or python3). */
  interpreter?: string;
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
}

export class Engine implements EngineOperations, EngineApi {
  /** This server among the nodes sharing its store (alone on SQLite). */
  readonly coordinator: Coordinator;
  private readonly handles = new Map<string, NamespaceHandle>();
  /** Compiled transforms of every namespace (keyed by namespace, name and version). */
  private readonly transformCache = new TransformCache();
  private readonly runPython: ReturnType<typeof pythonRunner>;

  private constructor(
    private readonly store: Store,
    private readonly options: EngineOptions,
  ) {
    this.runPython = pythonRunner(options.interpreter);
    this.coordinator = options.coordinator ?? coordinatorFor(store, { ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }), onError: (error) => this.backgroundError(error) });
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
    return engine;
  }

  /** Stops every namespace's production at once; each gets `budgetMs` before it is killed. */
  async close(budgetMs?: number): Promise<void> {
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
    return (await this.coordinator.listNodes()).map((node) => ({ nodeId: node.nodeId, host: node.host, pid: node.pid, self: node.nodeId === self, silentMs: node.silentMs }));
  }

  /** What another node told: routed to the namespace it is about. */
  private onClusterEvent(event: ClusterEvent | null): void {
    if (event === null) {
      // Notifications may have been missed: look for queued work and finished replies.
      for (const { director } of this.handles.values()) {
        director.running?.recheckWaiters().catch((error) => this.backgroundError(error));
        for (const host of director.running?.hosts.values() ?? []) host.queue.wake();
      }
      return;
    }
    const director = this.handles.get(event.namespace)?.director;
    if (!director) return;
    if (event.type === 'wake') director.running?.wake(event.target);
    else if (event.type === 'reply') director.running?.deliverRemoteReply(event.requestId, event.responseId, event.error).catch((error) => this.backgroundError(error));
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
      const dtl = new DtlService(this.store, namespace, this.runPython, this.transformCache);
      const director = new Director(this.store, namespace, new ComponentResolver(this.store, namespace, this.options.interpreter), log, {
        drainTimeoutMs: this.options.drainTimeoutMs ?? 10_000,
        graceMs: this.options.graceMs ?? 5_000,
        transforms: dtl,
        coordinator: this.coordinator,
        onError: (error) => this.backgroundError(error),
      });
      handle = new NamespaceHandle(director, dtl, this.store, this.options.interpreter);
      this.handles.set(namespace, handle);
    }
    return handle;
  }

  // ---- EngineApi (one namespace parameter per call): kept until the API routes use namespace() ----

  /** @deprecated use namespace(name).dtl */
  readonly dtl: LegacyDtlService = legacyDtl((namespace) => this.namespace(namespace).then((ns) => ns.dtl));

  async assertNamespace(namespace: string): Promise<void> {
    await this.namespace(namespace);
  }
  status = async (namespace: string) => (await this.namespace(namespace)).status();
  start = async (namespace: string, production?: string) => (await this.namespace(namespace)).start(production);
  stop = async (namespace: string) => (await this.namespace(namespace)).stop();
  kill = async (namespace: string) => (await this.namespace(namespace)).kill();
  restart = async (namespace: string) => (await this.namespace(namespace)).restart();
  update = async (namespace: string) => (await this.namespace(namespace)).update();
  list = async (namespace: string) => (await this.namespace(namespace)).list();
  getDefault = async (namespace: string) => (await this.namespace(namespace)).getDefault();
  setDefault = async (namespace: string, production: string) => (await this.namespace(namespace)).setDefault(production);
  getDefinition = async (namespace: string, production?: string) => (await this.namespace(namespace)).getDefinition(production);
  putDefinition = async (namespace: string, definition: ProductionDefinition) => (await this.namespace(namespace)).putDefinition(definition);
  logTop = async (namespace: string, top: number) => (await this.namespace(namespace)).log.top(top);
  logSince = async (namespace: string, sinceId: number, limit: number) => (await this.namespace(namespace)).log.since(sinceId, limit);
  searchLog = async (namespace: string, query: LogQuery) => (await this.namespace(namespace)).log.search(query);
  test = async (namespace: string, request: TestRequest) => (await this.namespace(namespace)).test(request);
  migrate = async (namespace: string, settingsPath: string) => (await this.namespace(namespace)).migrate(settingsPath);
  migratePackage = async (namespace: string, upload: PackageUpload) => (await this.namespace(namespace)).migratePackage(upload);
  componentStart = async (namespace: string, item: string) => (await this.namespace(namespace)).components.start(item);
  componentStop = async (namespace: string, item: string) => (await this.namespace(namespace)).components.stop(item);
  componentRestart = async (namespace: string, item: string) => (await this.namespace(namespace)).components.restart(item);
  items = async (namespace: string) => (await this.namespace(namespace)).items();
  queues = async (namespace: string) => (await this.namespace(namespace)).queues();
  connections = async (namespace: string) => (await this.namespace(namespace)).connections();
  classes = async (namespace: string) => (await this.namespace(namespace)).classes();
  searchMessages = async (namespace: string, filter: MessageFilter) => (await this.namespace(namespace)).messages.search(filter);
  getMessage = async (namespace: string, id: number) => (await this.namespace(namespace)).messages.get(id);
  sessionTrace = async (namespace: string, sessionId: number) => (await this.namespace(namespace)).messages.trace(sessionId);
  resend = async (namespace: string, id: number, target?: string) => (await this.namespace(namespace)).messages.resend(id, target);
  messageCounts = async (namespace: string) => (await this.namespace(namespace)).messageCounts();

  private backgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('conveyor engine:', error);
  }
}
