/**
 * The operations on one namespace (NamespaceOperations), over its Director (lifecycle), its
 * DtlService and the store. The engine makes one per namespace, once the namespace is known to
 * exist, and hands the same one to every request; nothing here checks the namespace again.
 */
import type { ClassBinding } from '../core/components.ts';
import { configuredConnections } from '../core/configured-connections.ts';
import { ConveyorError } from '../core/errors.ts';
import { checkDefinition } from '../core/definition-check.ts';
import type { StoredMessage } from '../core/message.ts';
import type { ProductionDefinition } from '../core/production.ts';
import type { QueueDepth, Store } from '../store/store.ts';
import type { Director } from './director.ts';
import { MessageControls } from './message-controls.ts';
import { operatorQueueDepths } from './queue-depths.ts';
import type { DtlService } from './dtl-service.ts';
import type { RuleService } from './rule-service.ts';
import type { RetentionOperations } from './retention/namespace-retention.ts';
import type { MigrateOptions, MigrationChoices } from './migration/migrate.ts';
import type { PackageUpload } from './migration/package-swap.ts';
import { builtinClasses } from './builtin/index.ts';
import { alertSettingsOf } from './monitor/alert-settings.ts';
import { buildMonitorReport, type ItemView, type MonitorReport } from './monitor/monitor-report.ts';
import type {
  AlertOperations,
  ComponentOperations,
  Connection,
  ItemMessageCounts,
  ItemStatus,
  LogOperations,
  MessageOperations,
  MigrationReport,
  NamespaceOperations,
  ProductionSummary,
  ServiceInput,
  ServiceInputResult,
  TestRequest,
  TestResult,
} from './namespace-operations.ts';
import { assertJsonObjectText, replyText, testRequestBody } from './test-message.ts';
import { previousOf, withoutPrevious, withPrevious } from './definition-history.ts';

/** What every stored definition satisfies: valid names and pool sizes, unique item names. */
function checkStorable(definition: ProductionDefinition): void {
  checkDefinition(definition);
  const names = new Set<string>();
  for (const item of definition.items) {
    if (names.has(item.name)) throw new ConveyorError('ERR_INVALID_INPUT', `Item name ${item.name} appears twice in production ${definition.name}`);
    names.add(item.name);
  }
}

export class NamespaceHandle implements NamespaceOperations {
  readonly alerts: AlertOperations;
  readonly components: ComponentOperations;
  readonly log: LogOperations;
  readonly messages: MessageOperations;
  readonly controls: MessageControls;
  private applying: Promise<unknown> = Promise.resolve();

  constructor(
    readonly director: Director,
    readonly dtl: DtlService,
    private readonly store: Store,
    private readonly interpreter: string | undefined,
    readonly rules: RuleService,
    readonly retention: RetentionOperations,
  ) {
    const name = director.namespace;
    this.alerts = {
      list: (query) => store.alerts.list(name, query),
      acknowledge: (ids, user) => store.alerts.acknowledge(name, ids, user, Date.now()),
    };
    this.components = {
      start: (item) => director.component('start', item),
      stop: (item) => director.component('stop', item),
      restart: (item) => director.component('restart', item),
    };
    this.log = {
      top: (count) => store.log.top(name, count),
      since: (sinceId, limit) => store.log.since(name, sinceId, limit),
      search: (query) => store.log.search(name, query),
    };
    this.messages = {
      search: (filter) => store.messages.search(name, filter),
      find: (search) => store.messages.find(name, search),
      get: (id) => this.message(id),
      trace: (sessionId) => store.messages.session(name, sessionId),
      resend: (id, target) => this.resend(id, target),
    };
    this.controls = new MessageControls(director, store);
  }

  get name(): string {
    return this.director.namespace;
  }

  async status() {
    const production = this.director.production || (await this.store.productions.getDefault(this.name)) || '';
    return { production, status: this.director.reportedStatus() };
  }

  start(production?: string): Promise<string> {
    return this.director.start(production);
  }

  stop(): Promise<void> {
    return this.director.stop();
  }

  kill(): Promise<void> {
    return this.director.kill();
  }

  restart(): Promise<void> {
    return this.director.restart();
  }

  async update(): Promise<void> {
    await this.director.update();
  }

  async list(): Promise<Record<string, ProductionSummary>> {
    const result: Record<string, ProductionSummary> = {};
    for (const record of await this.store.productions.list(this.name)) {
      result[record.name] = {
        status: record.name === this.director.production ? this.director.reportedStatus() : 'stopped',
        lastStartTime: record.lastStartTime,
        lastStopTime: record.lastStopTime,
        autoStart: record.autoStart,
      };
    }
    return result;
  }

  async getDefault(): Promise<string> {
    return (await this.store.productions.getDefault(this.name)) ?? '';
  }

  async setDefault(production: string): Promise<void> {
    if (!(await this.store.productions.get(this.name, production))) {
      throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${production} does not exist in namespace ${this.name}`);
    }
    await this.store.productions.setDefault(this.name, production);
  }

  async getDefinition(production?: string): Promise<ProductionDefinition> {
    const name = production || (await this.store.productions.getDefault(this.name));
    if (!name) throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', `No production was named and namespace ${this.name} has no default production`);
    const record = await this.store.productions.get(this.name, name);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist in namespace ${this.name}`);
    return withoutPrevious(record.definition);
  }

  async putDefinition(definition: ProductionDefinition): Promise<void> {
    checkStorable(definition);
    await this.store.productions.put(this.name, definition);
  }

  applyDefinition(definition: ProductionDefinition, check?: (current: ProductionDefinition | null) => void) {
    checkStorable(definition);
    // Applies on this node run one at a time, so `check` sees the definition the write replaces.
    const applied = this.applying.then(async () => {
      const record = await this.store.productions.get(this.name, definition.name);
      const current = record ? withoutPrevious(record.definition) : null;
      check?.(current);
      await this.store.productions.put(this.name, withPrevious(definition, current));
      return { previous: current };
    });
    this.applying = applied.catch(() => undefined);
    return applied;
  }

  async previousDefinition(production: string): Promise<ProductionDefinition | null> {
    const record = await this.store.productions.get(this.name, production);
    if (!record) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${production} does not exist in namespace ${this.name}`);
    return previousOf(record.definition);
  }

  async unbindClass(name: string): Promise<void> {
    const binding = await this.store.classes.get(this.name, name);
    if (!binding) throw new ConveyorError('ERR_CLASS_NOT_FOUND', `No component class ${name} is registered in namespace ${this.name}`);
    if (binding.runtime !== 'python')
      throw new ConveyorError('ERR_INVALID_INPUT', `Cannot unbind ${name}: it is a built-in class, not a registered Python component`);
    const users = (await this.store.productions.list(this.name)).flatMap((record) =>
      record.definition.items.filter((item) => item.classname === name).map((item) => `${record.name}/${item.name}`),
    );
    if (users.length > 0) throw new ConveyorError('ERR_CLASS_IN_USE', `Cannot unbind ${name}: it is used by production items ${users.join(', ')}`);
    await this.store.classes.delete(this.name, name);
  }

  async test(request: TestRequest): Promise<TestResult> {
    const body = testRequestBody(request.classname, request.body);
    if (body.encoding === 'json') assertJsonObjectText(body.data);
    // The Director refuses what can never answer and waits for the reply outside its command order.
    const result = await this.director.test({
      target: request.target,
      body,
      restart: request.restart ?? true,
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    });
    return { ...replyText(result.reply), sessionId: result.sessionId, durationMs: result.durationMs };
  }

  async processInput(request: ServiceInput): Promise<ServiceInputResult> {
    const running = this.director.state === 'running' ? this.director.running : null;
    if (!running) {
      throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', `No production is running in namespace ${this.name}: cannot send input to ${request.service}`);
    }
    const body = testRequestBody(request.classname, request.body);
    if (body.encoding === 'json') assertJsonObjectText(body.data);
    // The wait is on user code: the bridge's call budget bounds on_process_input (a synchronous send has its own).
    const { result, sessionId } = await running.processInput(request.service, body);
    return { ...replyText(result), sessionId };
  }

  async migrate(settingsPath: string, choices: MigrationChoices = {}): Promise<MigrationReport> {
    // Loaded on first use: most server runs never migrate.
    const { migrateSettings } = await import('./migration/migrate.ts');
    return migrateSettings(this.store, this.name, settingsPath, this.migrateOptions(choices));
  }

  async migratePackage(upload: PackageUpload, choices: MigrationChoices = {}): Promise<MigrationReport> {
    const { migratePackage } = await import('./migration/package-swap.ts');
    return migratePackage(this.store, this.name, upload, this.migrateOptions(choices));
  }

  private migrateOptions(choices: MigrationChoices): MigrateOptions {
    return this.interpreter === undefined ? { ...choices } : { ...choices, interpreter: this.interpreter };
  }

  async items(): Promise<ItemStatus[]> {
    const running = this.director.running;
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
    const name = this.director.production || (await this.store.productions.getDefault(this.name));
    const record = name ? await this.store.productions.get(this.name, name) : null;
    return (record?.definition.items ?? []).map((item) => ({
      name: item.name,
      classname: item.classname,
      enabled: item.enabled,
      state: item.enabled ? 'stopped' : 'disabled',
      jobs: 0,
      error: null,
    }));
  }

  /** Requests a job is handling count as in progress, also where the store still says queued (queue-depths.ts). */
  async queues(): Promise<QueueDepth[]> {
    return operatorQueueDepths(this.store, this.name, this.director.running?.hosts);
  }

  /**
   * Item → target pairs: the TargetConfigNames settings, the Host settings the item's class declares as
   * targets (IoP 4's `target()`), and the flows seen since the start.
   */
  async connections(): Promise<Connection[]> {
    const running = this.director.running;
    const definition = running?.definition ?? (await this.getDefinition().catch(() => null));
    const pairs = new Set<string>();
    if (definition) for (const { from, to } of configuredConnections(definition, await this.store.classes.list(this.name))) pairs.add(`${from}\u0000${to}`);
    for (const flow of running?.flows ?? []) pairs.add(flow);
    return [...pairs].map((pair) => {
      const [from, to] = pair.split('\u0000') as [string, string];
      return { from, to };
    });
  }

  classes(): Promise<ClassBinding[]> {
    return this.store.classes.list(this.name);
  }

  async messageCounts(): Promise<ItemMessageCounts[]> {
    return [...this.director.monitor.statistics.entries()].map(([item, figures]) => ({ item, processed: figures.processed, failed: figures.failed }));
  }

  async monitor(): Promise<MonitorReport> {
    const monitor = this.director.monitor;
    const running = this.director.running;
    const [status, depths, bindings, open] = await Promise.all([
      this.status(),
      this.queues(),
      this.classes(),
      this.store.alerts.list(this.name, { acknowledged: false, limit: 10_000 }),
    ]);
    let items: ItemView[];
    if (running) {
      items = [...running.hosts.values()].map((host) => ({
        name: host.name,
        classname: host.item.classname,
        kind: host.kind,
        enabled: host.item.enabled,
        state: host.state,
        error: host.error,
        jobs: host.jobCount,
        alertSettings: alertSettingsOf(host.item),
        inactive: monitor.isInactive(host.name),
      }));
    } else {
      const definition = status.production ? await this.getDefinition(status.production).catch(() => null) : null;
      const kindOf = new Map(bindings.map((binding) => [binding.name, binding.kind as string]));
      items = (definition?.items ?? []).map((item) => ({
        name: item.name,
        classname: item.classname,
        kind: kindOf.get(item.classname) ?? builtinClasses.get(item.classname)?.kind ?? 'component',
        enabled: item.enabled,
        state: item.enabled ? 'stopped' : 'disabled',
        error: null,
        jobs: 0,
        alertSettings: alertSettingsOf(item),
        inactive: false,
      }));
    }
    return buildMonitorReport({
      namespace: this.name,
      node: this.director.nodeId,
      production: running?.name ?? status.production,
      status: status.status,
      items,
      depths,
      statistics: monitor.statistics,
      openAlerts: open.length,
      now: Date.now(),
    });
  }

  private async message(id: number): Promise<StoredMessage> {
    const message = await this.store.messages.get(this.name, id);
    if (!message) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Message ${id} does not exist in namespace ${this.name}`);
    return message;
  }

  private async resend(id: number, target?: string): Promise<number> {
    const original = await this.message(id);
    if (original.kind !== 'request') throw new ConveyorError('ERR_INVALID_INPUT', `Message ${id} is a response; only requests can be resent`);
    return this.director.withRunning('resend a message', async (running) => {
      const sent = await running.send({ source: original.source, parentId: null, sessionId: null }, target ?? original.target, original.body, {
        responseRequired: false,
        description: `Resent from message ${id}`,
      });
      await sent.accepted;
      return sent.message.id;
    });
  }
}
