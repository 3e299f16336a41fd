/**
 * An in-memory engine for the API's unit tests (the edge of the unit): it keeps productions, a
 * default, a log and queues per namespace, refuses what the real engine refuses with the same error
 * codes, and records every call so tests can check which namespace a route used. The routes reach it
 * through the façade (`namespace(name)`, fake-namespace.ts); tests call its methods directly.
 */
import { ConveyorError } from '../../../src/core/errors.ts';
import type { ClassBinding } from '../../../src/core/components.ts';
import type { LogEntry, LogType } from '../../../src/core/log.ts';
import type { MessageHeader, StoredMessage } from '../../../src/core/message.ts';
import { newItem, newProduction, type ProductionDefinition, type ReportedStatus } from '../../../src/core/production.ts';
import type { QueueDepth } from '../../../src/store/store.ts';
import type { AlertQuery, StoredAlert } from '../../../src/store/alerts.ts';
import type { MonitorItem, MonitorReport } from '../../../src/engine/monitor/monitor-report.ts';
import type { MigrationChoices } from '../../../src/engine/migration/migrate.ts';
import type { PackageUpload } from '../../../src/engine/migration/package-swap.ts';
import type {
  Connection,
  EngineOperations,
  ItemMessageCounts,
  ItemStatus,
  MigrationReport,
  NamespaceOperations,
  NodeInfo,
  ProductionSummary,
  TestRequest,
  TestResult,
} from '../../../src/engine/namespace-operations.ts';
import { fakeNamespace, type NamespacedFake } from './fake-namespace.ts';

interface NamespaceState {
  definitions: Map<string, ProductionDefinition>;
  current: string;
  status: ReportedStatus;
  defaultProduction: string;
  log: LogEntry[];
  queues: QueueDepth[];
  lastStart: number | null;
  lastStop: number | null;
}

export class FakeEngine implements EngineOperations, NamespacedFake {
  readonly calls: Array<{ method: string; namespace: string; args: unknown[] }> = [];
  readonly state = new Map<string, NamespaceState>();
  /** What `test` answers; a function may throw. */
  testAnswer: (request: TestRequest) => { classname: string; body: string } = () => ({ classname: 'msg.Reply', body: '{"ok":true}' });
  migrateFailure: Error | null = null;
  bindings: ClassBinding[] = [];
  edges: Connection[] = [];
  counts: ItemMessageCounts[] = [];
  /** The items `monitor` reports (the health follows the namespace's status). */
  monitorItems: MonitorItem[] = [];
  alerts: StoredAlert[] = [];

  constructor(namespaces: string[] = ['USER', 'OTHER']) {
    for (const namespace of namespaces) {
      const demo = newProduction(
        'Demo.Production',
        [
          newItem('Python.FileOperation', 'Python.FileOperation', { settings: [{ target: 'Host', name: 'path', value: '/tmp' }] }),
          newItem('Python.Router', 'Python.Router', { enabled: false }),
        ],
        {
          description: 'demo',
        },
      );
      this.state.set(namespace, {
        definitions: new Map([[demo.name, demo]]),
        current: '',
        status: 'stopped',
        defaultProduction: '',
        log: [],
        queues: [],
        lastStart: null,
        lastStop: null,
      });
    }
  }

  ns(namespace: string): NamespaceState {
    const state = this.state.get(namespace);
    if (!state) throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace ${namespace} does not exist`);
    return state;
  }

  #call(method: string, namespace: string, ...args: unknown[]): NamespaceState {
    this.calls.push({ method, namespace, args });
    return this.ns(namespace);
  }

  lastCall(method: string) {
    return this.calls.filter((call) => call.method === method).at(-1);
  }

  addLog(namespace: string, count: number, type: LogType = 'Info'): void {
    const state = this.ns(namespace);
    for (let index = 0; index < count; index++) {
      const id = state.log.length + 1;
      state.log.push({
        id,
        namespace,
        type,
        configName: 'Python.FileOperation',
        job: '123',
        messageId: id % 2 ? id : null,
        sessionId: 7,
        sourceClass: 'bo.FileOperation',
        sourceMethod: 'on_message',
        text: `entry ${id}`,
        timeLogged: Date.UTC(2026, 10, 22, 10, 0, id % 60),
      });
    }
  }

  async namespaces(): Promise<string[]> {
    return [...this.state.keys()];
  }
  async namespace(name: string): Promise<NamespaceOperations> {
    this.ns(name);
    return fakeNamespace(this, name);
  }
  async nodes(): Promise<NodeInfo[]> {
    return [{ nodeId: 'fake-node', host: 'localhost', pid: 1, self: true, silentMs: 0 }];
  }
  async status(namespace: string) {
    const state = this.#call('status', namespace);
    return { production: state.current, status: state.status };
  }
  async start(namespace: string, production?: string): Promise<string> {
    const state = this.#call('start', namespace, production);
    const name = production ?? state.defaultProduction;
    if (!name) throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', 'No production was named and the namespace has no default production');
    if (!state.definitions.has(name)) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist`);
    if (state.status === 'running') throw new ConveyorError('ERR_PRODUCTION_RUNNING', `Production ${state.current} is already running`);
    Object.assign(state, { current: name, status: 'running', defaultProduction: name, lastStart: Date.UTC(2026, 10, 22, 9, 0, 0) });
    return name;
  }
  #running(state: NamespaceState): void {
    if (state.status !== 'running') throw new ConveyorError('ERR_PRODUCTION_NOT_RUNNING', 'No production is running in the namespace');
  }
  async stop(namespace: string): Promise<void> {
    const state = this.#call('stop', namespace);
    this.#running(state);
    Object.assign(state, { status: 'stopped', lastStop: Date.UTC(2026, 10, 22, 9, 30, 0) });
  }
  async kill(namespace: string): Promise<void> {
    const state = this.#call('kill', namespace);
    Object.assign(state, { status: 'stopped', lastStop: Date.UTC(2026, 10, 22, 9, 31, 0) });
  }
  async restart(namespace: string): Promise<void> {
    this.#running(this.#call('restart', namespace));
  }
  async update(namespace: string): Promise<void> {
    this.#running(this.#call('update', namespace));
  }
  async list(namespace: string): Promise<Record<string, ProductionSummary>> {
    const state = this.#call('list', namespace);
    return Object.fromEntries(
      [...state.definitions.keys()].map((name) => [
        name,
        {
          status: name === state.current ? state.status : 'stopped',
          lastStartTime: name === state.current ? state.lastStart : null,
          lastStopTime: name === state.current ? state.lastStop : null,
          autoStart: false,
        },
      ]),
    );
  }
  async getDefault(namespace: string): Promise<string> {
    return this.#call('getDefault', namespace).defaultProduction;
  }
  async setDefault(namespace: string, production: string): Promise<void> {
    const state = this.#call('setDefault', namespace, production);
    if (!state.definitions.has(production)) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${production} does not exist`);
    state.defaultProduction = production;
  }
  async getDefinition(namespace: string, production?: string): Promise<ProductionDefinition> {
    const state = this.#call('getDefinition', namespace, production);
    const name = production ?? state.defaultProduction;
    if (!name) throw new ConveyorError('ERR_NO_DEFAULT_PRODUCTION', 'No production was named and the namespace has no default production');
    const definition = state.definitions.get(name);
    if (!definition) throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production ${name} does not exist`);
    return definition;
  }
  async putDefinition(namespace: string, definition: ProductionDefinition): Promise<void> {
    this.#call('putDefinition', namespace, definition).definitions.set(definition.name, definition);
  }
  async logTop(namespace: string, top: number): Promise<LogEntry[]> {
    return [...this.#call('logTop', namespace, top).log].reverse().slice(0, top);
  }
  async logSince(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]> {
    return this.#call('logSince', namespace, sinceId, limit)
      .log.filter((entry) => entry.id > sinceId)
      .slice(0, limit);
  }
  async test(namespace: string, request: TestRequest): Promise<TestResult> {
    const state = this.#call('test', namespace, request);
    this.#running(state);
    const definition = state.definitions.get(state.current);
    if (!definition?.items.some((item) => item.name === request.target))
      throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item ${request.target} in production ${state.current}`);
    return { ...this.testAnswer(request), sessionId: 1, durationMs: 1 };
  }
  async migrate(namespace: string, settingsPath: string, choices: MigrationChoices = {}): Promise<MigrationReport> {
    this.#call('migrate', namespace, settingsPath, choices);
    if (this.migrateFailure) throw this.migrateFailure;
    return { classes: [], productions: [], schemas: [], output: [] };
  }
  async migratePackage(namespace: string, upload: PackageUpload, choices: MigrationChoices = {}): Promise<MigrationReport> {
    this.#call('migratePackage', namespace, upload, choices);
    if (this.migrateFailure) throw this.migrateFailure;
    return { classes: [], productions: [], schemas: [], output: [] };
  }
  async componentStart(namespace: string, item: string): Promise<void> {
    this.#item(this.#call('componentStart', namespace, item), item);
  }
  async componentStop(namespace: string, item: string): Promise<void> {
    this.#item(this.#call('componentStop', namespace, item), item);
  }
  async componentRestart(namespace: string, item: string): Promise<void> {
    this.#item(this.#call('componentRestart', namespace, item), item);
  }
  #item(state: NamespaceState, item: string): void {
    this.#running(state);
    if (!state.definitions.get(state.current)?.items.some((candidate) => candidate.name === item))
      throw new ConveyorError('ERR_ITEM_NOT_FOUND', `No item ${item} in production ${state.current}`);
  }
  async items(namespace: string): Promise<ItemStatus[]> {
    this.#call('items', namespace);
    return [];
  }
  async queues(namespace: string): Promise<QueueDepth[]> {
    return this.#call('queues', namespace).queues;
  }
  async connections(namespace: string): Promise<Connection[]> {
    this.#call('connections', namespace);
    return this.edges;
  }
  async classes(namespace: string): Promise<ClassBinding[]> {
    this.#call('classes', namespace);
    return this.bindings;
  }
  async messageCounts(namespace: string): Promise<ItemMessageCounts[]> {
    this.#call('messageCounts', namespace);
    return this.counts;
  }
  async monitor(namespace: string): Promise<MonitorReport> {
    const state = this.#call('monitor', namespace);
    const running = state.status === 'running';
    return {
      namespace,
      node: 'fake-node',
      production: state.current,
      status: state.status,
      health: running ? 'ok' : 'down',
      reason: running ? 'running' : 'not running',
      openAlerts: this.alerts.filter((alert) => !alert.acknowledged).length,
      time: Date.UTC(2026, 10, 22, 10, 0, 0),
      items: this.monitorItems,
    };
  }
  async listAlerts(namespace: string, query: AlertQuery): Promise<StoredAlert[]> {
    this.#call('listAlerts', namespace, query);
    return this.alerts.filter((alert) => query.acknowledged === undefined || alert.acknowledged === query.acknowledged).slice(0, query.limit);
  }
  async acknowledgeAlerts(namespace: string, ids: number[], user: string): Promise<number> {
    this.#call('acknowledgeAlerts', namespace, ids, user);
    let changed = 0;
    for (const alert of this.alerts) {
      if (!ids.includes(alert.id) || alert.acknowledged) continue;
      Object.assign(alert, { acknowledged: true, acknowledgedBy: user, acknowledgedAt: 1 });
      changed++;
    }
    return changed;
  }
  async searchMessages(): Promise<MessageHeader[]> {
    return [];
  }
  async getMessage(_namespace: string, id: number): Promise<StoredMessage> {
    throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `No message ${id}`);
  }
  async sessionTrace(): Promise<MessageHeader[]> {
    return [];
  }
  async resend(): Promise<number> {
    return 0;
  }
}
