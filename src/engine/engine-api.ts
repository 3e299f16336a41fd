/**
 * The management façade: every operation the HTTP API (and through it the CLI and the portal)
 * performs on a platform instance. Transports stay thin; the behaviour lives behind this interface.
 * All methods reject with ConveyorError (src/core/errors.ts) on failure.
 */
import type { ClassBinding } from '../core/components.ts';
import type { LogEntry } from '../core/log.ts';
import type { MessageHeader, StoredMessage } from '../core/message.ts';
import type { ProductionDefinition, ReportedStatus } from '../core/production.ts';
import type { MessageFilter, QueueDepth } from '../store/store.ts';

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

/** Messages handled by one item since the server started (for `GET /metrics`). */
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
