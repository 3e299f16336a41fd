/**
 * The state of one run: documents, locals, collected errors and traces, control flow. Compiled
 * closures receive it as their only argument.
 */
import type { TransformParameters } from './ast.ts';
import type { Position } from './diagnostics.ts';
import type { ActionWhere } from './action-position.ts';
import type { DtlHost, DtlRunError, DtlTraceEntry } from './types.ts';
import { toJson, toStr } from './values.ts';

export const FLOW_NORMAL = 0;
/** A `<break>` inside a loop: leave the innermost foreach. */
export const FLOW_BREAK = 1;
/** A `<break>` outside any loop, or a runtime error: end the transform. */
export const FLOW_STOP = 2;

export interface RunContext {
  source: unknown;
  target: unknown;
  aux: unknown;
  locals: Record<string, unknown>;
  host: DtlHost;
  params: TransformParameters;
  document: string;
  errors: DtlRunError[];
  trace: DtlTraceEntry[];
  flow: number;
  /** The action running now: trace entries and errors name it. */
  at: ActionWhere;
  /** The value a class method's `Quit value` / `Return value` hands back. */
  methodResult: unknown;
  now(): Date;
}

type ContextFields = Pick<RunContext, 'source' | 'target' | 'aux' | 'host' | 'params' | 'document'>;

/** Before the first action runs (and for an expression evaluated on its own). */
export const OUTSIDE_ACTIONS: ActionWhere = { action: '', position: '' };

/** A class rather than an object literal: one hidden class for every run keeps the hot path monomorphic. */
class Context implements RunContext {
  source: unknown;
  target: unknown;
  aux: unknown;
  locals: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  host: DtlHost;
  params: TransformParameters;
  document: string;
  errors: DtlRunError[] = [];
  trace: DtlTraceEntry[] = [];
  flow = FLOW_NORMAL;
  at: ActionWhere = OUTSIDE_ACTIONS;
  methodResult: unknown = undefined;
  #clock: Date | null = null;

  constructor(fields: ContextFields) {
    this.source = fields.source;
    this.target = fields.target;
    this.aux = fields.aux;
    this.host = fields.host;
    this.params = fields.params;
    this.document = fields.document;
  }

  /** One clock reading per run, so every $H / CurrentDateTime of a run agrees. */
  now(): Date {
    return (this.#clock ??= this.host.now ? this.host.now() : new Date());
  }
}

/** An ObjectScript runtime error (<UNDEFINED>, <DIVIDE>, …): it ends the run with an error status. */
export class ObjectScriptError extends Error {
  readonly pos: Position | null;
  constructor(code: string, detail: string, pos: Position | null = null) {
    super(detail === '' ? `<${code}>` : `<${code}> ${detail}`);
    this.name = 'ObjectScriptError';
    this.pos = pos;
  }
}

/** A `user` trace entry (`<trace>`, `$$$TRACE`, `$$$LOG…`), naming the running action. */
export function userTrace(ctx: RunContext, value: unknown, line: number, level?: DtlTraceEntry['level']): void {
  const entry: DtlTraceEntry = { category: 'user', action: ctx.at.action, position: ctx.at.position, value: toJson(value), text: toStr(value), line };
  ctx.trace.push(level ? { ...entry, level } : entry);
}

export function newContext(fields: ContextFields): RunContext {
  return new Context(fields);
}
