/**
 * The seam between the engine and a component implementation. Built-in components (TypeScript,
 * src/engine/builtin) and Python components (src/bridge, one python3 child per job) both implement
 * ComponentInstance; the engine's hosts drive them and give them a ComponentContext.
 */
import type { ComponentKind } from './components.ts';
import type { LogType } from './log.ts';
import type { MessageBody } from './message.ts';
import type { RoutingRule } from './routing-rule.ts';

export interface ComponentSettings {
  /** `Host` settings of the item (strings, as stored in the definition). */
  host: Record<string, string>;
  /** `Adapter` settings of the item. */
  adapter: Record<string, string>;
}

export interface SendOptions {
  description?: string;
  /** Milliseconds; -1 or undefined waits forever. */
  timeoutMs?: number;
}

export interface AsyncSendOptions extends SendOptions {
  /** Processes: the key handed back to on_response. */
  completionKey?: string | null;
  /** Processes: whether the reply must come back to on_response (default true). */
  responseRequired?: boolean;
}

/** A response handed back to a caller: the body, or null when the target answered nothing. */
export type Reply = MessageBody | null;

export interface MultiReply {
  target: string;
  request: MessageBody;
  response: Reply;
  /** `ok` or the error text. */
  status: string;
}

/** What the engine offers a component while it handles one message (or one poll). */
export interface CallContext {
  /** The message being handled (null for a poll of a service). */
  readonly messageId: number | null;
  readonly sessionId: number | null;
  /** The description of the message being handled ('' when none). */
  readonly description: string;
  /** The item that sent the message being handled (absent for a poll or outside a message). */
  readonly source?: string;
  sendSync(target: string, body: MessageBody, options?: SendOptions): Promise<Reply>;
  /** Resolves once the request is accepted (persisted), not when it is answered. */
  sendAsync(target: string, body: MessageBody, options?: AsyncSendOptions): Promise<void>;
  sendMultiSync(calls: Array<{ target: string; body: MessageBody }>, options?: SendOptions): Promise<MultiReply[]>;
  /** Processes: the longest wait for outstanding async responses before on_complete. */
  setTimer(timeoutMs: number, completionKey: string | null): void;
  /** Processes: answer the original caller now. */
  reply(body: Reply): Promise<void>;
}

/** What the engine offers a component for its whole life. */
export interface ComponentContext {
  readonly namespace: string;
  readonly configName: string;
  readonly kind: ComponentKind;
  readonly settings: ComponentSettings;
  /** The job label in the event log (e.g. the worker's pid). */
  readonly job: string;
  log(type: LogType, text: string, source?: { sourceClass?: string; sourceMethod?: string }, call?: CallContext | null): void;
  /**
   * Applies a stored DTL transform of the namespace to a body (the transform process, the SDK, the
   * routing engine); `aux` is the value the transform reads as `aux` (a routing rule passes its own).
   */
  transform?(name: string, body: MessageBody, options?: { aux?: unknown }): Promise<MessageBody>;
  /** A routing rule class of the namespace, compiled (the routing engine); ERR_RULE_NOT_FOUND when absent. */
  routingRule?(name: string): Promise<RoutingRule>;
  /** The spec's schema import: a JSON schema file on the server, a package, a schema name. */
  importSchema?(path: string, packageName: string, name: string): Promise<void>;
  /**
   * A call context outside of any message: services use it for `on_process_input` results they
   * send on their own (a non-polling service driven from user code).
   */
  newCall(): CallContext;
}

export interface AsyncResponse {
  /** The request the process sent, and the response that came back (null on error or timeout). */
  callRequest: MessageBody;
  callResponse: Reply;
  completionKey: string | null;
}

export interface ComponentInstance {
  /** Creates the instance, applies settings, runs on_init. Rejects when the component cannot start. */
  init(context: ComponentContext): Promise<void>;
  /** Operations and processes: handle one request; the result is the response. */
  onMessage(request: MessageBody, call: CallContext): Promise<Reply>;
  /** Services: one poll or one pushed input. */
  onProcessInput(input: Reply, call: CallContext): Promise<Reply>;
  /** Processes: one async response arrived. Returns the process's current response. */
  onResponse(request: MessageBody, response: Reply, asyncResponse: AsyncResponse, call: CallContext): Promise<Reply>;
  /** Processes: every async response arrived (or the timer ran out). Returns the final response. */
  onComplete(request: MessageBody, response: Reply, call: CallContext): Promise<Reply>;
  /** Runs on_tear_down and ends the instance. Must not hang longer than `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /** Immediate end, no hooks. */
  kill(): void;
  /**
   * Called by the instance when it dies on its own (a crashed worker). The host logs the error,
   * fails or retries the message in flight and restarts the job.
   */
  onExit(listener: (reason: string) => void): void;
}

/** Makes instances of one component class: the host calls it once per job. */
export interface ComponentFactory {
  create(): ComponentInstance;
}
