/**
 * The namespace handle of the fake engine: each operation calls the fake's method of the same meaning
 * with the namespace bound, so the fake keeps one record of calls (with their namespace) for the tests.
 */
import { ConveyorError } from '../../../src/core/errors.ts';
import type { ClassBinding } from '../../../src/core/components.ts';
import type { LogEntry } from '../../../src/core/log.ts';
import type { MessageHeader, StoredMessage } from '../../../src/core/message.ts';
import type { ProductionDefinition, ReportedStatus } from '../../../src/core/production.ts';
import type { MigrationChoices } from '../../../src/engine/migration/migrate.ts';
import type { PackageUpload } from '../../../src/engine/migration/package-swap.ts';
import type { RetentionOperations } from '../../../src/engine/retention/namespace-retention.ts';
import { purgeBound } from '../../../src/engine/retention/purge-bound.ts';
import type {
  Connection,
  ControlOperations,
  DtlOperations,
  ItemMessageCounts,
  ItemStatus,
  MigrationReport,
  NamespaceOperations,
  ProductionSummary,
  TestRequest,
  TestResult,
} from '../../../src/engine/namespace-operations.ts';
import type { LogQuery, MessageFilter, MessageHit, QueueDepth, StoreUsage } from '../../../src/store/store.ts';
import type { AlertQuery, StoredAlert } from '../../../src/store/alerts.ts';
import { fakeRules } from './fake-rules.ts';
import type { MonitorReport } from '../../../src/engine/monitor/monitor-report.ts';

/** A DTL whose every operation takes the namespace first (what a test's fake provides). */
export type FakeDtl = { [Name in keyof DtlOperations]: (namespace: string, ...args: Parameters<DtlOperations[Name]>) => ReturnType<DtlOperations[Name]> };

/** The fake engine's methods, namespace first. */
export interface NamespacedFake {
  status(namespace: string): Promise<{ production: string; status: ReportedStatus }>;
  start(namespace: string, production?: string): Promise<string>;
  stop(namespace: string): Promise<void>;
  kill(namespace: string): Promise<void>;
  restart(namespace: string): Promise<void>;
  update(namespace: string): Promise<void>;
  list(namespace: string): Promise<Record<string, ProductionSummary>>;
  getDefault(namespace: string): Promise<string>;
  setDefault(namespace: string, production: string): Promise<void>;
  getDefinition(namespace: string, production?: string): Promise<ProductionDefinition>;
  putDefinition(namespace: string, definition: ProductionDefinition): Promise<void>;
  test(namespace: string, request: TestRequest): Promise<TestResult>;
  migrate(namespace: string, settingsPath: string, choices?: MigrationChoices): Promise<MigrationReport>;
  migratePackage(namespace: string, upload: PackageUpload, choices?: MigrationChoices): Promise<MigrationReport>;
  items(namespace: string): Promise<ItemStatus[]>;
  queues(namespace: string): Promise<QueueDepth[]>;
  connections(namespace: string): Promise<Connection[]>;
  classes(namespace: string): Promise<ClassBinding[]>;
  messageCounts(namespace: string): Promise<ItemMessageCounts[]>;
  monitor(namespace: string): Promise<MonitorReport>;
  listAlerts(namespace: string, query: AlertQuery): Promise<StoredAlert[]>;
  acknowledgeAlerts(namespace: string, ids: number[], user: string): Promise<number>;
  componentStart(namespace: string, item: string): Promise<void>;
  componentStop(namespace: string, item: string): Promise<void>;
  componentRestart(namespace: string, item: string): Promise<void>;
  logTop(namespace: string, top: number): Promise<LogEntry[]>;
  logSince(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]>;
  searchLog?(namespace: string, query: LogQuery): Promise<LogEntry[]>;
  searchMessages(namespace: string, filter: MessageFilter): Promise<MessageHeader[]>;
  getMessage(namespace: string, id: number): Promise<StoredMessage>;
  sessionTrace(namespace: string, sessionId: number): Promise<MessageHeader[]>;
  resend(namespace: string, id: number, target?: string): Promise<number>;
  dtl?: FakeDtl;
}

function missingDtl(): never {
  throw new ConveyorError('ERR_NOT_AVAILABLE', 'This fake engine has no DTL');
}

function boundDtl(fake: NamespacedFake, name: string): DtlOperations {
  const dtl = () => fake.dtl ?? missingDtl();
  return {
    listTransforms: async () => dtl().listTransforms(name),
    getTransform: async (transform, version) => dtl().getTransform(name, transform, version),
    transformHistory: async (transform) => dtl().transformHistory(name, transform),
    putTransform: async (transform, source) => dtl().putTransform(name, transform, source),
    deleteTransform: async (transform) => dtl().deleteTransform(name, transform),
    compileTransform: async (source, documentName) => dtl().compileTransform(name, source, documentName),
    runTransform: async (transform, input) => dtl().runTransform(name, transform, input),
    listSchemas: async () => dtl().listSchemas(name),
    getSchema: async (schema) => dtl().getSchema(name, schema),
    schemaTree: async (schema) => dtl().schemaTree(name, schema),
    importSchema: async (request) => dtl().importSchema(name, request),
    deleteSchema: async (schema) => dtl().deleteSchema(name, schema),
    lookupTables: async () => dtl().lookupTables(name),
    getLookup: async (table) => dtl().getLookup(name, table),
    putLookup: async (table, entries) => dtl().putLookup(name, table, entries),
    putLookups: async (tables) => dtl().putLookups(name, tables),
    deleteLookup: async (table) => dtl().deleteLookup(name, table),
  };
}

/** The definitions the fake's applies replaced, per fake, namespace and production. */
const replaced = new WeakMap<NamespacedFake, Map<string, ProductionDefinition>>();

function replacedOf(fake: NamespacedFake): Map<string, ProductionDefinition> {
  const map = replaced.get(fake) ?? new Map<string, ProductionDefinition>();
  replaced.set(fake, map);
  return map;
}

/** A failed asynchronous request, as a suspended message looks. */
function fakeHeader(namespace: string, id: number): MessageHeader {
  const time = Date.UTC(2026, 10, 22, 9, 0, 0);
  return {
    id,
    namespace,
    sessionId: id,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Python.FileService',
    target: 'Python.FileOperation',
    responseRequired: false,
    status: 'error',
    priority: 0,
    description: '',
    error: 'boom',
    attempts: 1,
    createdAt: time,
    updatedAt: time,
    leaseOwner: null,
    leaseUntil: null,
  };
}

/** Queue controls of the fake engine: every action succeeds on what it is given (the real behaviour is tested in test/api/controls.e2e.test.ts). */
function fakeControls(namespace: string): ControlOperations {
  const done = async (ids: number[]) => ids.map((id) => ({ id, done: true, reason: null }));
  const resent = (id: number, target: string) => ({ id, resendId: id + 1000, target });
  return {
    queues: async () => [],
    suspendQueue: async (item, user) => ({ item, suspendedBy: user, suspendedAt: Date.UTC(2026, 10, 22, 9, 0, 0) }),
    resumeQueue: async () => undefined,
    message: async (id) => ({
      message: fakeHeader(namespace, id),
      suspended: true,
      actions: ['discard', 'resend', 'edit-resend'],
      links: { resentFrom: null, resends: [] },
    }),
    suspended: async () => [],
    abort: done,
    discard: done,
    resend: async (ids, _user, target) => ids.map((id) => resent(id, target ?? 'Python.FileOperation')),
    editAndResend: async (id, _user, edit) => resent(id, edit.target ?? 'Python.FileOperation'),
  };
}

/**
 * Retention without a store: no policy (a new one is accepted, not kept), usage and a purge answer
 * fixed sample figures, which is what the OpenAPI test checks the reply shapes with. The real purge and
 * policy are tested against the real engine (test/api/retention.e2e.test.ts).
 */
function sampleRetention(): RetentionOperations {
  const usage: StoreUsage = {
    storeBytes: 8192,
    dataBytes: 8192,
    freeBytes: 0,
    reclaim: 'incremental',
    messages: 2,
    oldestMessage: 1,
    logEntries: 3,
    oldestLogEntry: 1,
  };
  const report = { messages: 1, bodies: 1, logEntries: 2, bytes: 900, reclaimedBytes: 0, batches: 1, durationMs: 1, complete: true };
  return {
    policy: async () => null,
    setPolicy: async () => undefined,
    usage: async () => usage,
    purge: async (request) => ({ ...report, dryRun: request.dryRun === true, before: purgeBound(request, Date.now()) }),
    lastRun: () => null,
  };
}

/** One sample hit for any search: its shape is what the search and export routes are tested with. */
const sampleHit: MessageHit = {
  id: 5,
  namespace: 'USER',
  sessionId: 5,
  parentId: null,
  correspondingId: null,
  kind: 'request',
  source: 'Python.FileService',
  target: 'Python.FileOperation',
  responseRequired: false,
  status: 'completed',
  priority: 0,
  description: '',
  error: null,
  attempts: 1,
  createdAt: 1,
  updatedAt: 1,
  leaseOwner: null,
  leaseUntil: null,
  classname: 'msg.Order',
  encoding: 'json',
  body: '{"patient":{"id":42}}',
};

export function fakeNamespace(fake: NamespacedFake, name: string): NamespaceOperations {
  return {
    name,
    status: () => fake.status(name),
    start: (production) => fake.start(name, production),
    stop: () => fake.stop(name),
    kill: () => fake.kill(name),
    restart: () => fake.restart(name),
    update: () => fake.update(name),
    list: () => fake.list(name),
    getDefault: () => fake.getDefault(name),
    setDefault: (production) => fake.setDefault(name, production),
    getDefinition: (production) => fake.getDefinition(name, production),
    putDefinition: (definition) => fake.putDefinition(name, definition),
    applyDefinition: async (definition, check) => {
      const current = await fake.getDefinition(name, definition.name).catch(() => null);
      check?.(current);
      await fake.putDefinition(name, definition);
      if (current) replacedOf(fake).set(`${name}/${definition.name}`, current);
      return { previous: current };
    },
    previousDefinition: async (production) => {
      await fake.getDefinition(name, production);
      return replacedOf(fake).get(`${name}/${production}`) ?? null;
    },
    unbindClass: async (classname) => {
      throw new ConveyorError('ERR_CLASS_NOT_FOUND', `This fake engine has no class to unbind (${classname})`);
    },
    test: (request) => fake.test(name, request),
    // Echoes the input as if the service returned it (no Python here).
    processInput: async (request) => ({ classname: request.classname ?? '', body: JSON.stringify(request.body ?? {}), sessionId: null }),
    migrate: (settingsPath, choices) => fake.migrate(name, settingsPath, choices),
    migratePackage: (upload, choices) => fake.migratePackage(name, upload, choices),
    items: () => fake.items(name),
    queues: () => fake.queues(name),
    connections: () => fake.connections(name),
    classes: () => fake.classes(name),
    messageCounts: () => fake.messageCounts(name),
    monitor: () => fake.monitor(name),
    retention: sampleRetention(),
    alerts: {
      list: (query) => fake.listAlerts(name, query),
      acknowledge: (ids, user) => fake.acknowledgeAlerts(name, ids, user),
    },
    components: {
      start: (item) => fake.componentStart(name, item),
      stop: (item) => fake.componentStop(name, item),
      restart: (item) => fake.componentRestart(name, item),
    },
    log: {
      top: (count) => fake.logTop(name, count),
      since: (sinceId, limit) => fake.logSince(name, sinceId, limit),
      search: async (query) => (fake.searchLog ? fake.searchLog(name, query) : []),
    },
    messages: {
      search: (filter) => fake.searchMessages(name, filter),
      find: async () => ({ hits: [sampleHit], next: null, scanned: 0 }),
      get: (id) => fake.getMessage(name, id),
      trace: (sessionId) => fake.sessionTrace(name, sessionId),
      resend: (id, target) => fake.resend(name, id, target),
    },
    dtl: boundDtl(fake, name),
    rules: fakeRules(fake, name),
    controls: fakeControls(name),
  };
}
