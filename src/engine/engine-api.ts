/**
 * The former management façade, with a namespace parameter on every call. Superseded by
 * EngineOperations / NamespaceOperations (namespace-operations.ts): `engine.namespace(name)` checks
 * the namespace once and gives every operation on it. Kept only while the API routes move over;
 * it goes with them.
 */
import type { ClassBinding } from '../core/components.ts';
import type { LogEntry } from '../core/log.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import type { ProductionDefinition, ReportedStatus } from '../core/production.ts';
import type { MessageFilter, QueueDepth } from '../store/store.ts';
import type { PackageUpload } from './migration/package-swap.ts';
import type { DtlOperations, Connection, ItemMessageCounts, ItemStatus, MigrationReport, NodeInfo, ProductionSummary, TestRequest, TestResult } from './namespace-operations.ts';

export type {
  Connection,
  ItemMessageCounts,
  ItemStatus,
  MigrationReport,
  NodeInfo,
  ProductionSummary,
  TestRequest,
  TestResult,
} from './namespace-operations.ts';

export interface EngineApi {
  namespaces(): Promise<string[]>;
  /** Throws ERR_NAMESPACE_UNKNOWN for an unknown namespace. Every other method calls it. */
  assertNamespace(namespace: string): Promise<void>;

  status(namespace: string): Promise<{ production: string; status: ReportedStatus }>;
  /** Starts the named production, or the default one. Returns the name started. */
  start(namespace: string, production?: string): Promise<string>;
  stop(namespace: string): Promise<void>;
  kill(namespace: string): Promise<void>;
  restart(namespace: string): Promise<void>;
  update(namespace: string): Promise<void>;
  list(namespace: string): Promise<Record<string, ProductionSummary>>;
  /** The default production name, or '' when none is set. */
  getDefault(namespace: string): Promise<string>;
  setDefault(namespace: string, production: string): Promise<void>;
  /** Definitions: read, create or replace (beyond the spec: the portal edits settings through it). */
  getDefinition(namespace: string, production?: string): Promise<ProductionDefinition>;
  putDefinition(namespace: string, definition: ProductionDefinition): Promise<void>;

  logTop(namespace: string, top: number): Promise<LogEntry[]>;
  logSince(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]>;

  test(namespace: string, request: TestRequest): Promise<TestResult>;
  /** Runs the settings.py migration of a folder already on this machine. */
  migrate(namespace: string, settingsPath: string): Promise<MigrationReport>;
  /** Writes an uploaded package and migrates it, all or nothing across kill -9 (`PUT /migrate`). */
  migratePackage(namespace: string, upload: PackageUpload): Promise<MigrationReport>;

  componentStart(namespace: string, item: string): Promise<void>;
  componentStop(namespace: string, item: string): Promise<void>;
  componentRestart(namespace: string, item: string): Promise<void>;
  items(namespace: string): Promise<ItemStatus[]>;
  queues(namespace: string): Promise<QueueDepth[]>;
  connections(namespace: string): Promise<Connection[]>;
  classes(namespace: string): Promise<ClassBinding[]>;

  searchMessages(namespace: string, filter: MessageFilter): Promise<MessageHeader[]>;
  getMessage(namespace: string, id: number): Promise<StoredMessage>;
  sessionTrace(namespace: string, sessionId: number): Promise<MessageHeader[]>;
  /** Sends a copy of a request again (to its target or another); returns the new message id. */
  resend(namespace: string, id: number, target?: string): Promise<number>;

  /** Optional (scale-out): the nodes serving this store, for `GET /nodes`. */
  nodes?(): Promise<NodeInfo[]>;

  /** Optional (added for `GET /metrics`): per-item message counters of the namespace. */
  messageCounts?(namespace: string): Promise<ItemMessageCounts[]>;
}

/** DtlOperations with the namespace as first parameter of every call (the former DtlService). */
export type LegacyDtlService = {
  [K in keyof DtlOperations]: DtlOperations[K] extends (...args: infer A) => infer R ? (namespace: string, ...args: A) => R : never;
};

/** The former DtlService over the namespace handles: each call resolves its namespace first. */
export function legacyDtl(resolve: (namespace: string) => Promise<DtlOperations>): LegacyDtlService {
  const call =
    <K extends keyof DtlOperations>(key: K) =>
    async (namespace: string, ...args: Parameters<DtlOperations[K]>) =>
      ((await resolve(namespace))[key] as (...a: Parameters<DtlOperations[K]>) => unknown)(...args);
  const keys: Array<keyof DtlOperations> = [
    'listTransforms', 'getTransform', 'transformHistory', 'putTransform', 'deleteTransform', 'compileTransform', 'runTransform',
    'listSchemas', 'getSchema', 'schemaTree', 'importSchema', 'deleteSchema',
    'lookupTables', 'getLookup', 'putLookup', 'putLookups', 'deleteLookup',
  ];
  return Object.fromEntries(keys.map((key) => [key, call(key)])) as unknown as LegacyDtlService;
}
