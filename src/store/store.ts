/**
 * The Store: everything Conveyor keeps, behind one narrow interface made of small repositories.
 * Drivers (sqlite/, postgres/) implement it; the engine sees only this file. Every driver must pass
 * `conformance.ts`, written once and run against each driver.
 *
 * Hot-path writes (messages, status changes, log entries) resolve only once committed, and drivers
 * group many of them into one transaction (group commit), so callers write one at a time and still
 * get batched commits.
 *
 * Rules every driver keeps (the conformance suite checks them): reads in a namespace that does not
 * exist answer empty (`[]`, `null`, `0`); writes into one reject with ERR_NAMESPACE_UNKNOWN. Lists
 * of named things (productions, classes, schemas, transforms, lookup tables) are sorted by name.
 * Text filters (`MessageFilter.text`, `LogQuery.text`) match an exact, case-sensitive substring.
 * A `limit` of 0 or less returns nothing. After `close()` every call rejects with ERR_STORE_CLOSED.
 */
import type { ClassBinding } from '../core/components.ts';
import type { LogEntry, LogType, NewLogEntry } from '../core/log.ts';
import type { BodyTest } from '../core/body-condition.ts';
import type { BodyEncoding, MessageBody, MessageHeader, MessageKind, MessageStatus, StoredMessage } from '../core/message.ts';
import type { ProductionDefinition, ProductionRecord } from '../core/production.ts';
import type { AlertRepository } from './alerts.ts';
import type { ControlRepository } from './controls.ts';

export interface StoreCapabilities {
  /** Several servers may share the store (PostgreSQL). SQLite: one server per home. */
  multiNode: boolean;
  /** The store can wake other nodes (LISTEN/NOTIFY). */
  notify: boolean;
}

export interface Store {
  readonly capabilities: StoreCapabilities;
  readonly namespaces: NamespaceRepository;
  readonly productions: ProductionRepository;
  readonly classes: ClassRepository;
  readonly messages: MessageRepository;
  readonly log: LogRepository;
  readonly schemas: SchemaRepository;
  readonly transforms: TransformRepository;
  /** Routing rule classes (IRIS Ens.Rule.Definition), versioned like transforms. */
  readonly rules: RuleRepository;
  readonly lookups: LookupRepository;
  readonly settingsMigrations: SettingsMigrationRepository;
  /** Retention policies, purges of old messages and log entries, store usage and space reclaim. */
  readonly retention: RetentionRepository;
  /** Alerts raised by the engine (src/store/alerts.ts): counted repeats, acknowledged by operators. */
  readonly alerts: AlertRepository;
  /** Queue and message controls (src/store/controls.ts): suspended queues, resend links, abort and discard. */
  readonly controls: ControlRepository;
  /** Coordination between nodes sharing the store: present exactly when `capabilities.multiNode`. */
  readonly cluster?: ClusterRepository;
  /** Waits for pending group commits, then closes. Later calls fail with ERR_STORE_CLOSED. */
  close(): Promise<void>;
}

export interface NamespaceRepository {
  /** `USER` exists from the first migration on. */
  list(): Promise<string[]>;
  exists(name: string): Promise<boolean>;
  /** Idempotent. An invalid name (see namespace-name.ts) rejects with ERR_INVALID_INPUT. */
  create(name: string): Promise<void>;
}

export interface ProductionRepository {
  list(namespace: string): Promise<ProductionRecord[]>;
  get(namespace: string, name: string): Promise<ProductionRecord | null>;
  /** Insert or replace the definition; keeps state, times and autoStart of an existing record. */
  put(namespace: string, definition: ProductionDefinition): Promise<void>;
  /** Also clears the namespace's default when it named this production. */
  delete(namespace: string, name: string): Promise<void>;
  /** Fields absent from the patch keep their value. Unknown production: ERR_PRODUCTION_NOT_FOUND. */
  setState(namespace: string, name: string, patch: ProductionStatePatch): Promise<void>;
  /** Unknown production: ERR_PRODUCTION_NOT_FOUND. */
  setAutoStart(namespace: string, name: string, autoStart: boolean): Promise<void>;
  /** The namespace's default (last-used) production, or null. */
  getDefault(namespace: string): Promise<string | null>;
  /** Any name is accepted (the engine checks it exists). */
  setDefault(namespace: string, name: string): Promise<void>;
}

export interface ProductionStatePatch {
  state?: 'running' | 'stopped';
  lastStartTime?: number | null;
  lastStopTime?: number | null;
}

export interface ClassRepository {
  list(namespace: string): Promise<ClassBinding[]>;
  get(namespace: string, name: string): Promise<ClassBinding | null>;
  put(namespace: string, binding: ClassBinding): Promise<void>;
  delete(namespace: string, name: string): Promise<void>;
}

export interface NewMessage {
  namespace: string;
  /** Null for a session's first message: the session id becomes the message's own id. */
  sessionId: number | null;
  parentId: number | null;
  correspondingId: number | null;
  kind: MessageKind;
  source: string;
  target: string;
  responseRequired: boolean;
  status: MessageStatus;
  /** Higher is served first by `claim` (0 = normal). */
  priority: number;
  description: string;
  body: MessageBody;
  /** The sender's W3C traceparent (tracing on), stored in `trace_parent`. */
  traceParent?: string | null;
}

/** Fields absent from a patch keep their value; `null` sets null. Unknown id: ERR_MESSAGE_NOT_FOUND. */
export interface MessagePatch {
  id: number;
  status?: MessageStatus;
  correspondingId?: number | null;
  error?: string | null;
  attempts?: number;
  leaseOwner?: string | null;
  leaseUntil?: number | null;
}

export interface MessageFilter {
  /** Epoch ms bounds on createdAt, inclusive. */
  from?: number;
  to?: number;
  source?: string;
  target?: string;
  classname?: string;
  status?: MessageStatus;
  kind?: MessageKind;
  sessionId?: number;
  /** Substring of the body data. */
  text?: string;
  /** Keyset paging: only ids lower than this (results are newest first). */
  beforeId?: number;
  limit: number;
}

/**
 * A content search (`MessageRepository.find`): the header filters of MessageFilter plus the tests
 * checked row by row — a substring of the error, a substring of the body, body conditions — which
 * examine at most `scanLimit` of the newest messages matching the header filters (below `beforeId`).
 */
export interface MessageSearch extends MessageFilter {
  /** Substring of the error text (case-sensitive). */
  error?: string;
  /** Only requests whose caller expects (true) or does not expect (false) a response: with status `error` and kind `request`, false selects suspended messages. */
  responseRequired?: boolean;
  /** Every test must hold (src/core/body-condition.ts). Only bodies that are JSON (encoding json or native) can match. */
  body?: BodyTest[];
  /** How many header matches one call examines at most when a row-checked test is set. */
  scanLimit: number;
  /** Return the first this many characters of each body; undefined: the whole body. */
  bodyChars?: number;
}

/** A search hit: the header, the body class and the body text (or its start). */
export interface MessageHit extends MessageHeader {
  classname: string;
  encoding: BodyEncoding;
  body: string;
}

export interface MessageSearchPage {
  /** Newest first, at most `limit`. */
  hits: MessageHit[];
  /**
   * Where the next page starts (its `beforeId`): the last hit's id when the page is full, the lowest id
   * examined when the scan stopped at `scanLimit` first; null when nothing more can match.
   */
  next: number | null;
  /** How many header matches were examined when the scan limit ended the walk (0 otherwise). */
  scanned: number;
}

export interface QueueDepth {
  target: string;
  queued: number;
  delivered: number;
  /** createdAt of the oldest queued or delivered message, or null. */
  oldest: number | null;
}

export interface CommitOptions {
  /**
   * Nobody waits for this commit by itself (a synchronous request, whose caller waits for the reply;
   * the reply to a caller that is itself handling an unfinished request): the rows ride in the next
   * commit instead of causing one. Stores that cannot defer a commit ignore it.
   */
  lazy?: boolean;
}

export interface MessageRepository {
  /** Group-committed. Resolves with the new ids, in order, once committed. */
  insert(messages: NewMessage[]): Promise<number[]>;
  /**
   * Optional: the same as `insert`, but the ids are assigned at once and returned with the promise
   * of the commit, so the caller can hand the message on while it is being written. The rows are
   * readable, and acknowledged, only once `committed` resolves; writes this store's node submits
   * later (patches of these ids included) commit in the same batch or after it. A multi-node store
   * assigns ids drawn from the database ahead, and throws ERR_STORE_UNAVAILABLE when it has none
   * left because the database could not be reached to draw more.
   */
  insertEager?(messages: NewMessage[], options?: CommitOptions): { ids: number[]; committed: Promise<void> };
  /**
   * Optional, multi-node stores only: the same as `insert`, but the requests are written already
   * claimed by `owner` — status `delivered`, leased for `leaseMs`, as `claim` would leave them — for a
   * node that hands them straight to its own idle jobs instead of claiming them back. `lazy` as for
   * `insertEager`: the commit need not reach the disk by itself. Like `insertEager`, the ids may come
   * before the commit (`committed` says when it is done); patches of them are applied after it.
   */
  insertClaimed?(messages: NewMessage[], owner: string, leaseMs: number, options?: { lazy?: boolean }): Promise<{ ids: number[]; committed: Promise<void> }>;
  /** Group-committed. Resolves once committed. */
  update(patches: MessagePatch[], options?: CommitOptions): Promise<void>;
  get(namespace: string, id: number): Promise<StoredMessage | null>;
  /** Newest first. */
  search(namespace: string, filter: MessageFilter): Promise<MessageHeader[]>;
  /** A content search, newest first, bounded by `scanLimit` (see MessageSearch). */
  find(namespace: string, search: MessageSearch): Promise<MessageSearchPage>;
  /** All messages of a session, oldest first. */
  session(namespace: string, sessionId: number): Promise<MessageHeader[]>;
  /** Requests still `queued` or `delivered` (recovery after a stop, kill or crash), oldest first. */
  unfinished(namespace: string): Promise<StoredMessage[]>;
  /**
   * Claims up to `limit` queued requests for the given targets: sets status `delivered`, the lease
   * owner and expiry, oldest first (priority first when set). Used where several nodes share the store.
   */
  claim(namespace: string, targets: string[], owner: string, limit: number, leaseMs: number): Promise<StoredMessage[]>;
  /** Extends the leases of these messages if `owner` still holds them; returns the ids extended. */
  extendLeases(ids: number[], owner: string, leaseMs: number): Promise<number[]>;
  /** Puts delivered messages whose lease expired (`leaseUntil <= now`) back to `queued`, lease cleared; returns how many. */
  releaseExpired(namespace: string, now: number): Promise<number>;
  /** Targets with queued or delivered messages (of either kind), sorted by target. */
  queueDepths(namespace: string): Promise<QueueDepth[]>;
  count(namespace: string): Promise<number>;
}

export interface LogQuery {
  type?: LogType;
  configName?: string;
  text?: string;
  sessionId?: number;
  beforeId?: number;
  limit: number;
}

export interface LogRepository {
  /** Group-committed. Ids strictly increase in commit order within a namespace. */
  append(namespace: string, entries: NewLogEntry[]): Promise<number[]>;
  /** The newest `top` entries, newest first. */
  top(namespace: string, top: number): Promise<LogEntry[]>;
  /** Entries with id > sinceId, ascending, at most `limit`. */
  since(namespace: string, sinceId: number, limit: number): Promise<LogEntry[]>;
  /** Newest first. */
  search(namespace: string, query: LogQuery): Promise<LogEntry[]>;
}

export interface StoredSchema {
  name: string;
  /** The package (IRIS category) it was imported under. */
  category: string;
  /** The JSON Schema document, as text. */
  schema: string;
  updatedAt: number;
}

export interface SchemaRepository {
  list(namespace: string): Promise<StoredSchema[]>;
  get(namespace: string, name: string): Promise<StoredSchema | null>;
  put(namespace: string, schema: Omit<StoredSchema, 'updatedAt'>): Promise<void>;
  delete(namespace: string, name: string): Promise<void>;
}

export interface StoredTransform {
  name: string;
  /** The document as given: a `<transform>` XML or an IRIS class (`.cls`) text. */
  source: string;
  version: number;
  updatedAt: number;
}

export interface TransformRepository {
  list(namespace: string): Promise<StoredTransform[]>;
  /** The latest version, or the given one. */
  get(namespace: string, name: string, version?: number): Promise<StoredTransform | null>;
  /** Stores a new version (1, 2, …) and returns it. */
  put(namespace: string, name: string, source: string): Promise<StoredTransform>;
  /** Every version, oldest first. */
  history(namespace: string, name: string): Promise<StoredTransform[]>;
  /** Removes every version; a later put starts again at version 1. */
  delete(namespace: string, name: string): Promise<void>;
}

/** A routing rule class: the IRIS class text (or a bare `<ruleDefinition>`), as given. */
export type StoredRule = StoredTransform;

/** Routing rule classes: the same versioned shape as transforms, in a table of their own. */
export type RuleRepository = TransformRepository;

/** Which versioned documents a driver's repository keeps: their table, and the word its error messages use for one. */
export interface VersionedKind {
  table: 'transform_versions' | 'rule_versions';
  noun: 'transform' | 'rule';
}

export interface LookupRepository {
  tables(namespace: string): Promise<string[]>;
  /** The entries (an empty table is `{}`), or null when the table does not exist. */
  get(namespace: string, table: string): Promise<Record<string, string> | null>;
  /** Replaces the whole table. */
  put(namespace: string, table: string, entries: Record<string, string>): Promise<void>;
  /** Replaces each of these tables, all in one transaction (an import: all of them or none). */
  putMany(namespace: string, tables: Record<string, Record<string, string>>): Promise<void>;
  delete(namespace: string, table: string): Promise<void>;
}

/** What one settings.py migration registers. */
export interface MigrationRegistrations {
  classes: ClassBinding[];
  schemas: Array<Omit<StoredSchema, 'updatedAt'>>;
  productions: ProductionDefinition[];
}

/**
 * A package switch of `PUT /migrate`, journaled so that kill -9 at any instant leaves either the old
 * package with the old registrations or the new package with the new ones: recorded before the new
 * files are staged, marked committed in the same transaction as the registrations, forgotten once
 * the staged folder has taken the package's place.
 */
export interface PackageSwap {
  id: string;
  /** The server that journaled it (host and home): only that server finishes or discards it. */
  owner: string;
  /** The folder holding the package folder. */
  folder: string;
  packageName: string;
  /** The folder the new files were staged in (inside `folder`). */
  staging: string;
  /** True once the registrations were committed with it: recovery then rolls the switch forward. */
  committed: boolean;
  createdAt: number;
}

export interface SettingsMigrationRepository {
  /** Journals a switch about to be staged (not committed). */
  stageSwap(swap: Omit<PackageSwap, 'committed' | 'createdAt'>): Promise<void>;
  /**
   * Writes every registration in one transaction; with `swapId`, marks that switch committed in the
   * same transaction (an unknown swap id rejects with ERR_MIGRATION and writes nothing).
   */
  commit(namespace: string, registrations: MigrationRegistrations, swapId: string | null): Promise<void>;
  /** The journaled switches of one owner, oldest first. */
  swaps(owner: string): Promise<PackageSwap[]>;
  /** Forgets a switch once it is finished or discarded. Unknown ids are ignored. */
  forgetSwap(id: string): Promise<void>;
}

/** What a node says about itself when it joins (PostgreSQL scale-out). */
export interface NodeRegistration {
  /** Unique per running server process; also the lease owner of the messages it claims. */
  nodeId: string;
  host: string;
  pid: number;
  /** Where its API answers, when known. */
  apiUrl: string | null;
}

export interface NodeRecord extends NodeRegistration {
  /** Epoch ms, by the database clock (one clock for every node). */
  startedAt: number;
  heartbeatAt: number;
  /** Milliseconds since the last heartbeat, by the database clock: compare it with your liveness limit. */
  silentMs: number;
}

export interface LeaseRecord {
  name: string;
  owner: string;
  /** Epoch ms, by the database clock. */
  acquiredAt: number;
  expiresAt: number;
}

/**
 * Called with each notification's payload, and with `null` after the listening connection was lost
 * and restored (notifications sent meanwhile are gone: re-read the tables).
 */
export type NotificationHandler = (payload: string | null) => void;

/**
 * Scale-out coordination: the node registry, named leases (pollers that must run on one node at a
 * time) and wake-ups between nodes. Lease and heartbeat times use the database clock, so nodes with
 * skewed clocks still agree on who holds what.
 */
export interface ClusterRepository {
  /** Inserts or replaces the node's row; its start and heartbeat times become now. */
  registerNode(node: NodeRegistration): Promise<void>;
  /** Refreshes the node's heartbeat; false when its row is gone (removed as dead): register again. */
  heartbeat(nodeId: string): Promise<boolean>;
  /** Removes the node's row and gives up its named leases (clean shutdown). */
  removeNode(nodeId: string): Promise<void>;
  /** Every registered node, by node id. */
  listNodes(): Promise<NodeRecord[]>;
  /**
   * Takes the named lease for `ttlMs` if it is free, expired, or already `nodeId`'s (then it is
   * renewed). True when `nodeId` holds it now. Renew well within the TTL; stop the guarded work
   * when a renewal returns false.
   */
  tryAcquireLease(name: string, nodeId: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `nodeId` holds it; true when it did. */
  releaseLease(name: string, nodeId: string): Promise<boolean>;
  /** The lease's current row (possibly expired), or null. */
  getLease(name: string): Promise<LeaseRecord | null>;
  /** Listens on a channel shared by every node of the store; resolves once listening. Returns the unsubscribe function. */
  subscribe(channel: string, onMessage: NotificationHandler): Promise<() => Promise<void>>;
  /** Wakes every subscriber of `channel` on every node (this one included). Keep payloads small (< 8000 bytes). */
  notify(channel: string, payload: string): Promise<void>;
}

/** How long a namespace keeps what it stores; null keeps that kind forever (or sets no cap). */
export interface RetentionPolicy {
  /** Finished messages older than this many days are purged. */
  messageDays: number | null;
  /** Event-log entries older than this many days are purged. */
  logDays: number | null;
  /** When the store uses more bytes than this, the namespace's oldest finished messages go first until it is under. */
  maxStoreBytes: number | null;
}

/** Where a batched walk stands: the (time, id) of the last row it took. Rows after it come next. */
export interface PurgePosition {
  at: number;
  id: number;
}

export interface PurgeBatchOptions {
  /** Most rows this batch takes (at least 1). */
  limit: number;
  /** Count and measure only; delete nothing. */
  dryRun: boolean;
  /** Resume after this position (the `next` of the previous batch). */
  after: PurgePosition | null;
}

export interface PurgeBatch {
  /** Message headers (messages) or log entries (log) deleted, or that would be (dry run). */
  count: number;
  /** Message bodies among them (a message may have none). */
  bodies: number;
  /** Bytes of text their rows held (body data, header and entry text fields, plus a fixed row overhead): an estimate of the space freed. */
  bytes: number;
  /** Where the next batch starts; null once nothing more is eligible before the bound. */
  next: PurgePosition | null;
}

/** What a namespace's data and the whole store take. */
export interface StoreUsage {
  /** Bytes the whole store uses now (every namespace; SQLite: pages in use, PostgreSQL: tables with indexes and TOAST). */
  storeBytes: number;
  /**
   * Bytes of live data, what a size cap compares: SQLite, the pages in use (= storeBytes); PostgreSQL,
   * rows × average row width from the planner statistics (ANALYZE, run by every reclaim and by autovacuum),
   * since the tables' files keep their size after a purge.
   */
  dataBytes: number;
  /** Bytes the store holds free for reuse (SQLite: freelist pages; PostgreSQL: not measured, 0). */
  freeBytes: number;
  /** How freed space goes back: `incremental` (SQLite auto_vacuum = INCREMENTAL: the file shrinks), `reuse` (SQLite without it: free pages are reused, the file keeps its size), `vacuum` (PostgreSQL: VACUUM makes dead rows reusable). */
  reclaim: 'incremental' | 'reuse' | 'vacuum';
  messages: number;
  /** createdAt of the namespace's oldest message, or null. */
  oldestMessage: number | null;
  logEntries: number;
  /** timeLogged of the namespace's oldest log entry, or null. */
  oldestLogEntry: number | null;
}

/**
 * Retention: a policy per namespace, and purges in bounded batches so that a caller can pace them
 * (yield between batches) and never holds the store for long.
 *
 * A message is eligible for purge when it belongs to the namespace, was created before the bound,
 * is finished (`completed`, `error` or `discarded`) and no message of its session is still
 * `queued` or `delivered` — so a purge never takes a message that is queued or in progress, and
 * never cuts a session whose work is still going on. Its body goes with it. Log entries are
 * eligible by `timeLogged` alone.
 */
export interface RetentionRepository {
  /** The namespace's policy, or null when none was set. */
  getPolicy(namespace: string): Promise<RetentionPolicy | null>;
  /** Sets (or, with null, removes) the namespace's policy. Unknown namespace: ERR_NAMESPACE_UNKNOWN. */
  putPolicy(namespace: string, policy: RetentionPolicy | null): Promise<void>;
  /** Every namespace that has a policy, by namespace name. */
  policies(): Promise<Array<{ namespace: string; policy: RetentionPolicy }>>;
  /** One batch of eligible messages created before `before` (epoch ms), oldest first: deleted with their bodies in one transaction, or only measured. */
  purgeMessages(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch>;
  /** One batch of log entries logged before `before` (epoch ms), oldest first. */
  purgeLog(namespace: string, before: number, options: PurgeBatchOptions): Promise<PurgeBatch>;
  usage(namespace: string): Promise<StoreUsage>;
  /**
   * Gives freed space back, bounded so that it never holds the store for long: SQLite with
   * auto_vacuum = INCREMENTAL returns up to `maxPages` free pages to the file system (call again
   * while `more`); PostgreSQL runs a plain VACUUM of the message and log tables (no exclusive lock:
   * dead rows become reusable). Returns the bytes the store's size went down by.
   */
  reclaim(maxPages: number): Promise<{ bytes: number; more: boolean }>;
}
