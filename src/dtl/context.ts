/**
 * The state of one run: documents, locals, collected errors and traces, control flow. Compiled
 * closures receive it as their only argument.
 */
import type { TransformParameters } from './ast.ts';
import type { Position } from './diagnostics.ts';
import type { DtlHost, DtlRunError, DtlTraceEntry } from './types.ts';

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
  /** The value a class method's `Quit value` / `Return value` hands back. */
  methodResult: unknown;
  now(): Date;
}

type ContextFields = Pick<RunContext, 'source' | 'target' | 'aux' | 'host' | 'params' | 'document'>;

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

export function newContext(fields: ContextFields): RunContext {
  return new Context(fields);
}
