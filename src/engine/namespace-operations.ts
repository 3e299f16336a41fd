/**
 * The management façade of the engine, in two levels: the engine-wide operations (namespaces,
 * nodes) and, resolved once per request by `engine.namespace(name)`, a handle holding every
 * operation on one namespace. The namespace is checked once, when the handle is made
 * (ERR_NAMESPACE_UNKNOWN); nothing behind the handle takes a namespace again. The HTTP API (and
 * through it the CLI and the portal) calls only these interfaces. Every method rejects with a
 * ConveyorError (src/core/errors.ts) on failure.
 */
import type { ClassBinding } from '../core/components.ts';
import type { LogEntry } from '../core/log.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import type { ProductionDefinition, ReportedStatus } from '../core/production.ts';
import type { DtlDiagnostic, SchemaTreeNode, TransformParameters } from '../dtl/index.ts';
import type { MessageLinks, QueueSuspension, SuspendedQuery } from '../store/controls.ts';
import type { MigrationChoices } from './migration/migrate.ts';
import type { PackageUpload } from './migration/package-swap.ts';
import type { RuleOperations } from './rule-service.ts';
import type { RetentionOperations } from './retention/namespace-retention.ts';
import type { LogQuery, MessageFilter, MessageSearch, MessageSearchPage, QueueDepth, StoredTransform } from '../store/store.ts';
import type { AlertQuery, StoredAlert } from '../store/alerts.ts';
import type { MonitorReport } from './monitor/monitor-report.ts';

export interface EngineOperations {
  namespaces(): Promise<string[]>;
  /** The handle of one namespace; rejects with ERR_NAMESPACE_UNKNOWN when it does not exist. */
  namespace(name: string): Promise<NamespaceOperations>;
  /** The nodes serving this store (this server alone unless several share a PostgreSQL store). */
  nodes(): Promise<NodeInfo[]>;
}

export interface NamespaceOperations {
  readonly name: string;

  status(): Promise<{ production: string; status: ReportedStatus }>;
  /** Starts the named production, or the default one. Returns the name started. */
  start(production?: string): Promise<string>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  update(): Promise<void>;
  list(): Promise<Record<string, ProductionSummary>>;
  /** The default production name, or '' when none is set. */
  getDefault(): Promise<string>;
  setDefault(production: string): Promise<void>;
  /** The stored definition of the named production, or of the default one. */
  getDefinition(production?: string): Promise<ProductionDefinition>;
  /** Creates or replaces a definition (the portal edits settings through it). */
  putDefinition(definition: ProductionDefinition): Promise<void>;
  /**
   * Creates or replaces a definition and records the one it replaces, in one write (all or nothing
   * across kill -9). `check` sees the stored definition (null when new) first and may refuse by throwing.
   */
  applyDefinition(definition: ProductionDefinition, check?: (current: ProductionDefinition | null) => void): Promise<{ previous: ProductionDefinition | null }>;
  /** The definition the last apply of this production replaced, or null. */
  previousDefinition(production: string): Promise<ProductionDefinition | null>;
  /** Unregisters a Python component class that no item of any production uses. */
  unbindClass(name: string): Promise<void>;

  /** Sends a test request to an item of the running production and waits for its reply. */
  test(request: TestRequest): Promise<TestResult>;
  /** Pushes one input into a business service of the running production (its on_process_input runs on it). */
  processInput(request: ServiceInput): Promise<ServiceInputResult>;
  /** Runs the settings.py migration of a folder already on this machine. */
  migrate(settingsPath: string, choices?: MigrationChoices): Promise<MigrationReport>;
  /**
   * Writes an uploaded package and runs its settings.py migration (`PUT /migrate`), all or nothing
   * across kill -9: the package folder changes only once the new one was validated.
   */
  migratePackage(upload: PackageUpload, choices?: MigrationChoices): Promise<MigrationReport>;

  items(): Promise<ItemStatus[]>;
  queues(): Promise<QueueDepth[]>;
  connections(): Promise<Connection[]>;
  classes(): Promise<ClassBinding[]>;
  /** Per-item message counters since the server started (for `GET /metrics`). */
  messageCounts(): Promise<ItemMessageCounts[]>;
  /** Live figures of the items on this node and the production's health (`GET /monitor`, the metrics). */
  monitor(): Promise<MonitorReport>;

  readonly alerts: AlertOperations;
  readonly components: ComponentOperations;
  readonly log: LogOperations;
  readonly messages: MessageOperations;
  readonly dtl: DtlOperations;
  /** Retention policy, store usage and purges (docs/operations.md, Retention). */
  readonly retention: RetentionOperations;
  /** Queue and message controls (operators; docs/operations.md). */
  readonly controls: ControlOperations;
  /** Routing rule classes (docs/rules.md). */
  readonly rules: RuleOperations;
}

/** The namespace's alerts (docs/operations.md, Alerts). */
export interface AlertOperations {
  /** Newest occurrence first. */
  list(query: AlertQuery): Promise<StoredAlert[]>;
  /** Marks open alerts acknowledged by `user`; returns how many changed. */
  acknowledge(ids: number[], user: string): Promise<number>;
}

/** One item of the running production, on every node. */
export interface ComponentOperations {
  start(item: string): Promise<void>;
  stop(item: string): Promise<void>;
  restart(item: string): Promise<void>;
}

export interface LogOperations {
  /** The newest `count` entries, newest first. */
  top(count: number): Promise<LogEntry[]>;
  /** Entries after `sinceId`, oldest first (follow mode). */
  since(sinceId: number, limit: number): Promise<LogEntry[]>;
  /** Search by type, item, text, session; newest first (the portal's log page and trace). */
  search(query: LogQuery): Promise<LogEntry[]>;
}

export interface MessageOperations {
  search(filter: MessageFilter): Promise<MessageHeader[]>;
  /** The content search: header filters, error and body tests, bounded by `scanLimit` (store.ts, MessageSearch). */
  find(search: MessageSearch): Promise<MessageSearchPage>;
  /** ERR_MESSAGE_NOT_FOUND when absent. */
  get(id: number): Promise<StoredMessage>;
  /** Every message of a session, for the visual trace. */
  trace(sessionId: number): Promise<MessageHeader[]>;
  /** Sends a copy of a request again (to its target or another); returns the new message id. */
  resend(id: number, target?: string): Promise<number>;
}

/**
 * Queue and message controls (docs/operations.md). Every action names the user who takes it, writes
 * an event-log entry naming them, and refuses (ERR_MESSAGE_NOT_FOUND, ERR_MESSAGE_STATE,
 * ERR_INVALID_INPUT) before changing anything when one of the given messages does not allow it.
 */
export interface ControlOperations {
  /** Per target with something to show: waiting and in-progress requests, suspension, suspended messages. */
  queues(): Promise<QueueControlState[]>;
  /** Holds the delivery of the item's queue (persisted; every node; kept across restarts). */
  suspendQueue(item: string, user: string): Promise<QueueSuspension>;
  resumeQueue(item: string, user: string): Promise<void>;
  /** A message with what may be done with it and its resend links. */
  message(id: number): Promise<MessageControlState>;
  /** Suspended messages (failed requests nobody waited for), newest first. */
  suspended(query: SuspendedQuery): Promise<MessageHeader[]>;
  /** Takes queued requests out of their queue (status discarded, `Aborted by <user>`). */
  abort(ids: number[], user: string): Promise<ControlOutcome[]>;
  /** Requests in error (suspended or not) become discarded. */
  discard(ids: number[], user: string): Promise<ControlOutcome[]>;
  /** New requests copying the bodies, to their targets or to `target`, each linked to its original. */
  resend(ids: number[], user: string, target?: string): Promise<ResendOutcome[]>;
  /** A new request with an edited body (checked like a test call's), linked to its original. */
  editAndResend(id: number, user: string, edit: EditedMessage): Promise<ResendOutcome>;
}

export interface QueueControlState {
  item: string;
  /** Requests waiting to be taken. */
  waiting: number;
  /** Requests a job is handling (or a node has claimed). */
  inProgress: number;
  /** createdAt of the oldest waiting or in-progress request, or null. */
  oldest: number | null;
  suspension: QueueSuspension | null;
  /** Suspended messages (failed requests nobody waited for) sent to this item. */
  suspendedMessages: number;
}

export type MessageAction = 'abort' | 'discard' | 'resend' | 'edit-resend';

export interface MessageControlState {
  message: MessageHeader;
  /** Kept aside as suspended (src/core/message-suspension.ts). */
  suspended: boolean;
  /** What its status allows now (resend also needs a running production). */
  actions: MessageAction[];
  links: MessageLinks;
}

/** What became of one message of an abort or discard. */
export interface ControlOutcome {
  id: number;
  /** False when it moved on meanwhile (taken, finished): `reason` says so. */
  done: boolean;
  reason: string | null;
}

export interface ResendOutcome {
  id: number;
  resendId: number;
  target: string;
}

export interface EditedMessage {
  /** The new body: a JSON object (or its text). */
  body: unknown;
  /** Default: the original's class. */
  classname?: string;
  /** Default: the original's target. */
  target?: string;
}

/** DTL of the namespace: transforms with their versions, JSON schemas as doc types, lookup tables. */
export interface DtlOperations {
  listTransforms(): Promise<TransformSummary[]>;
  /** The latest version, or the given one. ERR_TRANSFORM_NOT_FOUND when absent. */
  getTransform(name: string, version?: number): Promise<StoredTransform>;
  /** Every version, oldest first. */
  transformHistory(name: string): Promise<StoredTransform[]>;
  /** Validates, then stores a new version; refuses (ERR_DTL, details = diagnostics) when it has errors. */
  putTransform(name: string, source: string): Promise<StoredTransform>;
  deleteTransform(name: string): Promise<void>;
  /** Parses and validates, also against the doc types' schemas; never throws for a bad document. */
  compileTransform(source: string, documentName?: string): Promise<DtlDiagnostic[]>;
  /** Runs a stored transform (by name) or a document (source) on a JSON source; `<sql>` runs on the SQL host `sqlHost` (default `default`). */
  runTransform(transform: { name?: string; source?: string }, input: TransformRunInput): Promise<TransformRunResult>;

  listSchemas(): Promise<SchemaSummary[]>;
  /** ERR_SCHEMA_NOT_FOUND when absent. */
  getSchema(name: string): Promise<{ name: string; category: string; schema: unknown }>;
  /** The fields of a schema as the DTL editor shows them. */
  schemaTree(name: string): Promise<SchemaTreeNode[]>;
  /** The spec's import: a JSON schema (a document, or a file on this machine) under a package and a name. */
  importSchema(request: { path?: string; schema?: unknown; package: string; name: string }): Promise<void>;
  deleteSchema(name: string): Promise<void>;

  lookupTables(): Promise<string[]>;
  /** ERR_LOOKUP_NOT_FOUND when absent. */
  getLookup(table: string): Promise<Record<string, string>>;
  putLookup(table: string, entries: Record<string, string>): Promise<void>;
  /** Replaces each of these tables, all in one transaction (an import: all of them or none). */
  putLookups(tables: Record<string, Record<string, string>>): Promise<void>;
  deleteLookup(table: string): Promise<void>;
}

export interface ProductionSummary {
  status: ReportedStatus;
  lastStartTime: number | null;
  lastStopTime: number | null;
  autoStart: boolean;
}

export interface TestRequest {
  target: string;
  /** Python message class (`module.Class`) or a native class (`Ens.StringRequest`); absent → empty request. */
  classname?: string;
  /** The body: a JSON object, or a JSON text. Default `{}`. */
  body?: unknown;
  /** Restart the target item before dispatch (default true). */
  restart?: boolean;
  /** How long to wait for the reply, in ms (default 300 s; beyond the spec). */
  timeoutMs?: number;
}

export interface ServiceInput {
  service: string;
  /** Python message class (`module.Class`) or a native class; absent → empty request. */
  classname?: string;
  /** The input: a JSON object, or a JSON text. Default `{}`. */
  body?: unknown;
}

export interface ServiceInputResult {
  /** What on_process_input returned ('' and '' for nothing). */
  classname: string;
  body: string;
  /** The session the input opened, null when the service sent nothing. */
  sessionId: number | null;
}

export interface TestResult {
  /** Class of the response ('' when the target answered nothing). */
  classname: string;
  /** The response body as JSON text ('' when the target answered nothing). */
  body: string;
  /** Session of the test call, for the trace. */
  sessionId: number;
  durationMs: number;
}

export interface MigrationReport {
  classes: string[];
  productions: string[];
  schemas: string[];
  /** Console lines: what was registered, and the `No … to register` lines. */
  output: string[];
}

export interface ItemStatus {
  name: string;
  classname: string;
  enabled: boolean;
  /** running | stopped | error | disabled */
  state: string;
  jobs: number;
  error: string | null;
}

export interface Connection {
  from: string;
  to: string;
}

/** Messages handled by one item since the server started. */
export interface ItemMessageCounts {
  item: string;
  /** Requests the item handled successfully. */
  processed: number;
  /** Requests whose handling failed for good. */
  failed: number;
}

export interface NodeInfo {
  nodeId: string;
  host: string;
  pid: number;
  /** The node answering this request. */
  self: boolean;
  /** Milliseconds since its last heartbeat. */
  silentMs: number;
}

export interface TransformSummary {
  name: string;
  sourceClass: string;
  targetClass: string;
  sourceDocType: string;
  targetDocType: string;
  version: number;
  updatedAt: number;
}

/** What a test run is given besides the transform. */
export interface TransformRunInput {
  /** The source message as JSON. */
  json: unknown;
  classname?: string;
  /** The caller's target, for create="existing" (refused for the other create modes). */
  target?: unknown;
  /** The `aux` value the transform reads (a routing rule passes its rule data there). */
  aux?: unknown;
  /** This run's parameters over the transform's own (IGNOREMISSINGSOURCE, REPORTERRORS, …). */
  parameters?: Partial<TransformParameters>;
  /** The SQL host `<sql>` runs on (default `default`). */
  sqlHost?: string;
}

export interface TransformRunResult {
  target: unknown;
  targetClass: string;
  status: 'ok' | 'error';
  /** `document:line:column: message` for each error (the texts callers had before the entries). */
  errors: string[];
  /** The text of each trace entry. */
  trace: string[];
  errorEntries: { kind: 'action' | 'runtime'; message: string; line: number; column: number; action: string; position: string }[];
  traceEntries: {
    category: 'user' | 'xform';
    action: string;
    position: string;
    value: unknown;
    text: string;
    line: number;
    level?: 'Info' | 'Warning' | 'Error' | 'Alert';
  }[];
}

export interface SchemaSummary {
  name: string;
  category: string;
  updatedAt: number;
}
