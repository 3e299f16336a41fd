/**
 * The frames exchanged with a Python worker (docs/python-bridge.md). Each frame is one variant of a
 * union tagged by `t` (ops by `op`, invokes by `hook`) and carries exactly its fields; `null`
 * stands for "none", so both languages read the same shape.
 */
import type { ComponentKind } from '../core/components.ts';
import type { LogType } from '../core/log.ts';
import type { MessageBody } from '../core/message.ts';
import type { Reply } from '../core/component.ts';
import type { EngineFailure, PythonFailure } from './failure.ts';

export const protocolVersion = 4;

// --- worker → engine ---------------------------------------------------------------------------

export interface HelloFrame {
  t: 'hello';
  protocol: number;
  pid: number;
  python: string;
}

/** The answer to an engine request that succeeded. */
export interface ResultFrame {
  t: 'result';
  id: number;
  value: unknown;
}

/** The answer to an engine request whose Python code raised. */
export interface FailureFrame {
  t: 'failure';
  id: number;
  failure: PythonFailure;
}

export type AnswerFrame = ResultFrame | FailureFrame;

/** Fields every op carries: its id and the engine's key of the call it was made in (null: none). */
interface OpHead {
  t: 'op';
  id: number;
  call: number | null;
}

export interface SendSyncOp extends OpHead {
  op: 'send_sync';
  target: string;
  body: MessageBody;
  /** -1: wait forever. */
  timeoutMs: number;
  description: string | null;
}

export interface SendAsyncOp extends OpHead {
  op: 'send_async';
  target: string;
  body: MessageBody;
  description: string | null;
  completionKey: string | null;
  responseRequired: boolean;
}

export interface SendMultiOp extends OpHead {
  op: 'send_multi';
  calls: Array<{ target: string; body: MessageBody }>;
  timeoutMs: number;
  description: string | null;
}

export interface SetTimerOp extends OpHead {
  op: 'set_timer';
  timeoutMs: number;
  completionKey: string | null;
}

export interface ReplyOp extends OpHead {
  op: 'reply';
  body: Reply;
}

/** Applies the stored DTL transform `transform` to `body`. */
export interface TransformOp extends OpHead {
  op: 'transform';
  transform: string;
  body: MessageBody;
}

/** The spec's schema import: a JSON schema file on the server, its package and its name. */
export interface ImportSchemaOp extends OpHead {
  op: 'import_schema';
  path: string;
  package: string;
  schema: string;
}

export interface NewCallOp extends OpHead {
  op: 'new_call';
}

export interface EndCallOp extends OpHead {
  op: 'end_call';
}

/** A request from user code to the engine. */
export type OpFrame = SendSyncOp | SendAsyncOp | SendMultiOp | SetTimerOp | ReplyOp | TransformOp | ImportSchemaOp | NewCallOp | EndCallOp;

export interface LogFrame {
  t: 'log';
  call: number | null;
  type: LogType;
  text: string;
  sourceClass: string;
  sourceMethod: string;
  /** IoP's `to_console`: meant for the console log rather than the event log. */
  console: boolean;
}

export type WorkerFrame = HelloFrame | AnswerFrame | OpFrame | LogFrame;

// --- engine → worker ---------------------------------------------------------------------------

export interface ClassRef {
  module: string;
  className: string;
  classpaths: string[];
}

export interface InitFrame extends ClassRef {
  t: 'init';
  id: number;
  namespace: string;
  configName: string;
  kind: ComponentKind;
  job: string;
  settings: { host: Record<string, string>; adapter: Record<string, string> };
  adapter: ClassRef | null;
}

interface InvokeHead {
  t: 'invoke';
  id: number;
  /** The engine's key for the CallContext; ops made during the hook carry it back. */
  call: number;
}

export interface MessageInvoke extends InvokeHead {
  hook: 'message';
  args: { request: MessageBody; messageId: number | null };
}

export interface ProcessInputInvoke extends InvokeHead {
  hook: 'process_input';
  args: { input: Reply };
}

export interface ResponseInvoke extends InvokeHead {
  hook: 'response';
  args: { request: MessageBody; response: Reply; callRequest: MessageBody; callResponse: Reply; completionKey: string | null };
}

export interface CompleteInvoke extends InvokeHead {
  hook: 'complete';
  args: { request: MessageBody; response: Reply };
}

export type InvokeFrame = MessageInvoke | ProcessInputInvoke | ResponseInvoke | CompleteInvoke;
export type HookName = InvokeFrame['hook'];
/** One hook and its arguments: an invoke frame without its envelope. */
export type HookCall = InvokeFrame extends infer F ? (F extends InvokeFrame ? Pick<F, 'hook' | 'args'> : never) : never;

export interface TeardownFrame {
  t: 'teardown';
  id: number;
}

/**
 * Python of a DTL transform: an expression to evaluate (`eval`) or a `<code>` body to run (`exec`),
 * over the JSON documents and locals (the DTL engine's PythonRequest). Answered `{value}` for `eval`,
 * `{target, locals}` for `exec`.
 */
export interface DtlFrame {
  t: 'dtl';
  id: number;
  mode: 'eval' | 'exec';
  code: string;
  /** The transform's Python from/import statements. */
  imports: string;
  source: unknown;
  target: unknown;
  aux: unknown;
  locals: Record<string, unknown>;
}

/** Reads a settings.py (IoP's `iop -m`) and answers the migration document. */
export interface MigrateFrame {
  t: 'migrate';
  id: number;
  path: string;
  /** IoP's strict_production_validation: a production with validation issues fails the read (absent: false). */
  strict?: boolean;
}

/** Decodes `body` as a worker with `classpaths` would (the SDK's deserialize); answered null, or the failure. */
export interface CheckMessageFrame {
  t: 'check_message';
  id: number;
  body: MessageBody;
  classpaths: string[];
}

export type EngineRequestFrame = InitFrame | InvokeFrame | TeardownFrame | DtlFrame | MigrateFrame | CheckMessageFrame;

/** The engine's answer to an op: its value, or why the engine could not do it. */
export type OpAnswerFrame = ResultFrame | { t: 'failure'; id: number; failure: EngineFailure };
