/**
 * The frames exchanged with a Python worker (docs/python-bridge.md). Every field is always sent,
 * `null` standing for "none", so both languages read the same shape.
 */
import type { ComponentKind } from '../core/components.ts';
import type { LogType } from '../core/log.ts';
import type { MessageBody } from '../core/message.ts';

export const protocolVersion = 1;

/** A Python exception, as the worker reports it. */
export interface PythonErrorPayload {
  type: string;
  message: string;
  traceback: string;
  /** The hook or step that raised (`import`, `on_init`, `on_message`, `serialize`, …). */
  hook?: string;
}

// --- worker → engine ---------------------------------------------------------------------------

export interface HelloFrame {
  t: 'hello';
  protocol: number;
  pid: number;
  python: string;
}

export type ResultFrame = { t: 'result'; id: number; ok: true; value: unknown } | { t: 'result'; id: number; ok: false; error: PythonErrorPayload };

export type OpName = 'send_sync' | 'send_async' | 'send_multi' | 'set_timer' | 'reply' | 'transform' | 'import_schema' | 'new_call' | 'end_call';

/** A request from user code to the engine, made while handling the call `call` (null: none). */
export interface OpFrame {
  t: 'op';
  id: number;
  op: OpName;
  call: number | null;
  target?: string;
  body?: MessageBody | null;
  calls?: Array<{ target: string; body: MessageBody }>;
  timeoutMs?: number;
  description?: string | null;
  completionKey?: string | null;
  responseRequired?: boolean;
  /** `transform`: the stored DTL transform to apply to `body`. */
  transform?: string;
  /** `import_schema`: the JSON schema file on the server, its package and its name. */
  path?: string;
  package?: string;
  schema?: string;
}

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

export type WorkerFrame = HelloFrame | ResultFrame | OpFrame | LogFrame;

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

export type HookName = 'message' | 'process_input' | 'response' | 'complete';

export interface InvokeFrame {
  t: 'invoke';
  id: number;
  /** The engine's key for the CallContext; ops made during the hook carry it back. */
  call: number;
  hook: HookName;
  args: Record<string, unknown>;
}

export interface TeardownFrame {
  t: 'teardown';
  id: number;
}

export type EngineRequestFrame = InitFrame | InvokeFrame | TeardownFrame;

