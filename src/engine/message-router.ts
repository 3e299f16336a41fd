/** What hosts and call contexts need from the running production: send, complete, log. */
import type { Reply } from '../core/component.ts';
import type { MessageBody, StoredMessage } from '../core/message.ts';
import type { RoutingRule } from '../core/routing-rule.ts';
import type { EventLog } from './event-log.ts';
import type { ItemTrouble } from './monitor/namespace-monitor.ts';
import type { ItemQueue } from './work-queue.ts';

export interface Origin {
  /** The config name of the sender (or a pseudo-item such as the testing service). */
  source: string;
  /** The request being handled when this one was sent, null for a session's first message. */
  parentId: number | null;
  sessionId: number | null;
  /** Tracing on: the span sending it (src/engine/tracing), stored with the message. */
  traceParent?: string | null;
}

export interface SendRequestOptions {
  /** A caller waits for the reply (sync calls, process async calls with a completion key). */
  responseRequired: boolean;
  description: string;
  priority?: number;
  /**
   * The caller waits for the reply, never for `accepted`: the request's row may commit with the
   * next commit (its response's at the latest) instead of one of its own.
   */
  replyOnly?: boolean;
  /** An alert request sent on an item's behalf: not counted as that item's activity (monitor). */
  alert?: boolean;
}

export interface SentRequest {
  message: StoredMessage;
  /** Resolves once the request is committed: from then on it is accepted and cannot be lost. */
  accepted: Promise<void>;
  /** The reply, when responseRequired; rejects with the error when the target failed. */
  reply: Promise<Reply> | null;
}

export type Outcome = { response: Reply } | { error: string };

export interface MessageRouter {
  readonly namespace: string;
  readonly log: EventLog;
  send(origin: Origin, target: string, body: MessageBody, options: SendRequestOptions): Promise<SentRequest>;
  /** Applies a stored DTL transform of the namespace; `<sql>` runs on the SQL host `options.sqlHost` (default `default`). */
  transform(name: string, body: MessageBody, options?: { sqlHost?: string }): Promise<MessageBody>;
  /** A compiled routing rule class of the namespace (absent where no rules are offered). */
  routingRule?(name: string): Promise<RoutingRule>;
  /** Imports a JSON schema file into the namespace (the spec's DTL import operation). */
  importSchema(path: string, packageName: string, name: string): Promise<void>;
  /** The queue of an item (in memory on one node, claimed from the store in a cluster). */
  createQueue(item: string, batch: number): ItemQueue;
  /** Whether this node may run the poll of a service now. */
  mayPoll(item: string, intervalMs: number): Promise<boolean>;
  /** Counts a request (a service: an input) an item finished handling, `durationMs` after it took it: in memory only (monitor, metrics). */
  countOutcome(item: string, ok: boolean, durationMs: number): void;
  /** Something went wrong with an item (a failed request, the item in error, a job restarted): the alerts decide. */
  reportTrouble(item: string, trouble: ItemTrouble): void;
  /** Persists the outcome of a request and hands the reply to whoever waits for it. */
  complete(request: StoredMessage, outcome: Outcome): Promise<void>;
}
