/**
 * The engine of one platform instance: a Director per namespace, and the management operations of
 * EngineApi on top of them. The HTTP API (and through it the CLI and the portal) calls only this.
 */
import type { ClassBinding } from '../core/components.ts';
import { ConveyorError } from '../core/errors.ts';
import type { LogEntry } from '../core/log.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import type { ProductionDefinition } from '../core/production.ts';
import type { LogQuery, MessageFilter, QueueDepth, Store } from '../store/store.ts';
import { ComponentResolver } from './component-resolver.ts';
import { hostname } from 'node:os';
import { ClusterNode, type ClusterEvent } from './cluster-node.ts';
import { Director } from './director.ts';
import type { RunningProduction } from './running-production.ts';
import { DtlService } from './dtl-service.ts';
import type { Connection, EngineApi, ItemMessageCounts, NodeInfo, ItemStatus, MigrationReport, ProductionSummary, TestRequest, TestResult } from './engine-api.ts';
import { EventLog } from './event-log.ts';
import { assertJsonObjectText, replyText, testRequestBody } from './test-message.ts';

export interface EngineOptions {
  /** Python interpreter for workers (default: CONVEYOR_PYTHON or python3). */
  interpreter?: string;
  drainTimeoutMs?: number;
  graceMs?: number;
  /** Cluster: lease of a claimed request (default 30 s); a dead node's requests wait this long. */
  leaseMs?: number;
  /** Where engine-level problems go (failed log writes, background errors). */
  onBackgroundError?: (error: unknown) => void;
}

/** The pseudo-item that sends the test endpoint's requests, named as IRIS names its testing service. */
export const testingService = 'EnsLib.Testing.Service';

export class Engine implements EngineApi {
  /** DTL: transforms, schemas, lookup tables of every namespace. */
  readonly dtl: DtlService;
  /** This server as a node of a cluster, when the store is shared (PostgreSQL). */
  readonly cluster: ClusterNode | null;
  private readonly directors = new Map<string, Director>();

  private constructor(
    private readonly store: Store,
    private readonly options: EngineOptions,
  ) {
    this.dtl = new DtlService(store, options.interpreter);
    this.cluster =
      store.capabilities.multiNode && store.cluster
        ? new ClusterNode(store.cluster, { leaseMs: options.leaseMs ?? 30_000, onError: (error) => this.backgroundError(error) })
        : null;
  }

  /** Opens the engine: joins the cluster, troubled states after a crash, then AutoStart productions. */
  static async open(store: Store, options: EngineOptions = {}): Promise<Engine> {
    const engine = new Engine(store, options);
    if (engine.cluster) {
      engine.cluster.listen((event) => engine.onClusterEvent(event));
      await engine.cluster.start();
    }
    for (const namespace of await store.namespaces.list()) {
      const director = engine.director(namespace);
      await director.recoverState();
      const autoStart = (await store.productions.list(namespace)).find((p) => p.autoStart);
      if (autoStart) await director.start(autoStart.name).catch((error) => engine.backgroundError(error));
    }
    return engine;
  }

  async close(): Promise<void> {
    for (const director of this.directors.values()) await director.shutdown();
    await this.cluster?.stop();
  }

  /**
   * The runtime of the production running in a namespace, or null. For code that drives a
   * production from inside the server process (benchmarks, embedding): pushing input into a
   * service, sending as a pseudo-item. Not part of the management façade.
   */
  runningProduction(namespace: string): RunningProduction | null {
    return this.directors.get(namespace)?.running ?? null;
  }

  /** The nodes serving this store: every registered node in a cluster, else this server alone. */
  async nodes(): Promise<NodeInfo[]> {
    if (!this.cluster) return [{ nodeId: 'local', host: hostname(), pid: process.pid, self: true, silentMs: 0 }];
    const self = this.cluster.nodeId;
    return (await this.cluster.listNodes()).map((node) => ({ nodeId: node.nodeId, host: node.host, pid: node.pid, self: node.nodeId === self, silentMs: node.silentMs }));
  }

  private onClusterEvent(event: ClusterEvent | null): void {
    if (event === null) {
      // Notifications may have been missed: look for queued work and finished replies.
      for (const director of this.directors.values()) {
        director.running?.recheckWaiters().catch((error) => this.backgroundError(error));
        for (const host of director.running?.hosts.values() ?? []) host.queue.wake();
      }
      return;
    }
    const director = this.directors.get(event.namespace);
    if (!director) return;
    if (event.type === 'wake') director.running?.wake(event.target);
    else if (event.type === 'reply') director.running?.deliverRemoteReply(event.requestId, event.responseId, event.error).catch((error) => this.backgroundError(error));
    else if (event.origin !== this.cluster?.nodeId) void director.applyRemote(event.op);
  }

  async namespaces(): Promise<string[]> {
    return this.store.namespaces.list();
  }

  async assertNamespace(namespace: string): Promise<void> {
    if (this.directors.has(namespace)) return;
    if (!(await this.store.namespaces.exists(namespace))) {
      throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace ${namespace} does not exist`, {
        hint: `Known namespaces: ${(await this.store.namespaces.list()).join(', ')}`,
      });
    }
    this.director(namespace);
  }

  async status(namespace: string) {
    const director = await this.use(namespace);
    const production = director.production || (await this.store.productions.getDefault(namespace)) || '';
    return { production, status: director.reportedStatus() };
  }

  async start(namespace: string, production?: string): Promise<string> {
    return (await this.use(namespace)).start(production);
  }

  async stop(namespace: string): Promise<void> {
    await (await this.use(namespace)).stop();
  }

  async kill(namespace: string): Promise<void> {
    await (await this.use(namespace)).kill();
  }

  async restart(namespace: string): Promise<void> {
    await (await this.use(namespace)).restart();
  }

  async update(namespace: string): Promise<void> {
    await (await this.use(namespace)).update();
  }

  async list(namespace: string): Promise<Record<string, ProductionSummary>> {
    const director = await this.use(namespace);
    const result: Record<string, ProductionSummary> = {};
    for (const record of await this.store.productions.list(namespace)) {
      result[record.name] = {
        status: record.name === director.production ? director.reportedStatus() : 'stopped',
        lastStartTime: record.lastStartTime,
        lastStopTime: record.lastStopTime,
        autoStart: record.autoStart,
      };
    }
    return result;
  }

  async getDefault(namespace: string): Promise<string> {
    await this.use(namespace);
    return (await this.store.productions.getDefault(namespace)) ?? '';
  }

  async setDefault(namespace: string, production: string): Promise<void> {
    await this.use(namespace);
    if (!(await this.store.productions.get(namespace, production))) {
      throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${production} does not exist in namespace ${namespace}`);
    }
    await this.store.productions.setDefault(namespace, production);
  }

  async getDefinition(namespace: string, production?: string): Promise<ProductionDefinition> {
    await this.use(namespace);
    const name = production || (await this.store.productions.getDefault(namespace));
    if (!name) throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', `No production was named and namespace ${namespace} has no default production`);
    const record = await this.store.productions.get(namespace, name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist in namespace ${namespace}`);
    return record.definition;
  }

  async putDefinition(namespace: string, definition: ProductionDefinition): Promise<void> {
    await this.use(namespace);
    const names = new Set<string>();
    for (const item of definition.items) {
      if (names.has(item.name)) throw new ConveyorError('ERR_INVALID_INPUT', `Item name ${item.name} appears twice in production ${definition.name}`);
      names.add(item.name);
    }
    await this.store.productions.put(namespace, definition);
  }

  async logTop(namespace: string, top: number): Promise<LogEntry[]> {
    await this.use(namespace);
    return this.store.log.top(namespace, top);
  }

  async logSince(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]> {
    await this.use(namespace);
    return this.store.log.since(namespace, sinceId, limit);
  }

  /** Event-log search for the portal: type, item, text, session; newest first. */
  async searchLog(namespace: string, query: LogQuery): Promise<LogEntry[]> {
    await this.use(namespace);
    return this.store.log.search(namespace, query);
  }

  async test(namespace: string, request: TestRequest): Promise<TestResult> {
    const director = await this.use(namespace);
    const body = testRequestBody(request.classname, request.body);
    if (body.encoding === 'json') assertJsonObjectText(body.data);
    return director.withRunning('test a component', async (running) => {
      const host = running.requireHost(request.target);
      if (request.restart ?? true) await running.restartItem(host.name);
      const started = Date.now();
      const sent = await running.send({ source: testingService, parentId: null, sessionId: null }, request.target, body, {
        responseRequired: true,
        description: 'Test call',
      });
      const reply = await (sent.reply as Promise<import('../core/component.ts').Reply>);
      return { ...replyText(reply), sessionId: sent.message.sessionId, durationMs: Date.now() - started };
    });
  }

  async migrate(namespace: string, settingsPath: string): Promise<MigrationReport> {
    await this.use(namespace);
    // Loaded on first use: most server runs never migrate.
    const { migrateSettings } = await import('./migration/migrate.ts');
    return migrateSettings(this.store, namespace, settingsPath, this.options.interpreter === undefined ? {} : { interpreter: this.options.interpreter });
  }

  async componentStart(namespace: string, item: string): Promise<void> {
    await (await this.use(namespace)).component('start', item);
  }

  async componentStop(namespace: string, item: string): Promise<void> {
    await (await this.use(namespace)).component('stop', item);
  }

  async componentRestart(namespace: string, item: string): Promise<void> {
    await (await this.use(namespace)).component('restart', item);
  }

  async items(namespace: string): Promise<ItemStatus[]> {
    const director = await this.use(namespace);
    const running = director.running;
    if (running) {
      return [...running.hosts.values()].map((host) => ({
        name: host.name,
        classname: host.item.classname,
        enabled: host.item.enabled,
        state: host.state,
        jobs: host.jobCount,
        error: host.error,
      }));
    }
    const name = director.production || (await this.store.productions.getDefault(namespace));
    const record = name ? await this.store.productions.get(namespace, name) : null;
    return (record?.definition.items ?? []).map((item) => ({
      name: item.name,
      classname: item.classname,
      enabled: item.enabled,
      state: item.enabled ? 'stopped' : 'disabled',
      jobs: 0,
      error: null,
    }));
  }

  async queues(namespace: string): Promise<QueueDepth[]> {
    await this.use(namespace);
    return this.store.messages.queueDepths(namespace);
  }

  async connections(namespace: string): Promise<Connection[]> {
    const director = await this.use(namespace);
    const definition = director.running?.definition ?? (await this.getDefinition(namespace).catch(() => null));
    const pairs = new Set<string>();
    for (const item of definition?.items ?? []) {
      for (const setting of item.settings) {
        if (setting.name !== 'TargetConfigNames') continue;
        for (const target of setting.value.split(',').map((t) => t.trim()).filter(Boolean)) pairs.add(`${item.name}\u0000${target}`);
      }
    }
    for (const flow of director.running?.flows ?? []) pairs.add(flow);
    return [...pairs].map((pair) => {
      const [from, to] = pair.split('\u0000') as [string, string];
      return { from, to };
    });
  }

  async classes(namespace: string): Promise<ClassBinding[]> {
    await this.use(namespace);
    return this.store.classes.list(namespace);
  }

  async searchMessages(namespace: string, filter: MessageFilter): Promise<MessageHeader[]> {
    await this.use(namespace);
    return this.store.messages.search(namespace, filter);
  }

  async getMessage(namespace: string, id: number): Promise<StoredMessage> {
    await this.use(namespace);
    const message = await this.store.messages.get(namespace, id);
    if (!message) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Message ${id} does not exist in namespace ${namespace}`);
    return message;
  }

  async sessionTrace(namespace: string, sessionId: number): Promise<MessageHeader[]> {
    await this.use(namespace);
    return this.store.messages.session(namespace, sessionId);
  }

  async resend(namespace: string, id: number, target?: string): Promise<number> {
    const director = await this.use(namespace);
    const original = await this.getMessage(namespace, id);
    if (original.kind !== 'request') throw new ConveyorError('ERR_INVALID_INPUT', `Message ${id} is a response; only requests can be resent`);
    return director.withRunning('resend a message', async (running) => {
      const sent = await running.send({ source: original.source, parentId: null, sessionId: null }, target ?? original.target, original.body, {
        responseRequired: false,
        description: `Resent from message ${id}`,
      });
      await sent.accepted;
      return sent.message.id;
    });
  }

  async messageCounts(namespace: string): Promise<ItemMessageCounts[]> {
    const director = await this.use(namespace);
    return [...director.counts].map(([item, counts]) => ({ item, ...counts }));
  }

  private async use(namespace: string): Promise<Director> {
    await this.assertNamespace(namespace);
    return this.director(namespace);
  }

  private director(namespace: string): Director {
    let director = this.directors.get(namespace);
    if (!director) {
      const log = new EventLog(this.store, namespace, (error) => this.backgroundError(error));
      director = new Director(this.store, namespace, new ComponentResolver(this.store, namespace, this.options.interpreter), log, {
        drainTimeoutMs: this.options.drainTimeoutMs ?? 10_000,
        graceMs: this.options.graceMs ?? 5_000,
        transforms: this.dtl,
        cluster: this.cluster,
        onError: (error) => this.backgroundError(error),
      });
      this.directors.set(namespace, director);
    }
    return director;
  }

  private backgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('conveyor engine:', error);
  }
}
