/**
 * The engine's public contracts: what a run returns, what a run is given, and the host interface
 * through which a transform reaches the outside world (lookup tables, SQL, Python, other
 * transforms, class methods, the clock). The engine and the portal each provide a host.
 */
import type { ActionNode, CreateMode, Language, TransformNode, TransformParameters } from './ast.ts';
import type { JsonValue } from './values.ts';

export interface DtlRunError {
  /** `action`: an action's status error (collected, the run goes on); `runtime`: an ObjectScript error that ended the run. */
  kind: 'action' | 'runtime';
  message: string;
  document: string;
  line: number;
  column: number;
  /** The action that failed and where it sits (src/dtl/action-position.ts); absent for a failure outside any action. */
  action?: ActionNode['kind'] | '';
  position?: string;
}

export interface DtlTraceEntry {
  /** `user`: a `<trace>` action or `$$$TRACE`/`$$$LOG…` in `<code>`; `xform`: an action error reported as a trace (REPORTERRORS=0). */
  category: 'user' | 'xform';
  /** The action that wrote the entry (`trace`, `code`, or the failing action of an `xform` entry). */
  action: ActionNode['kind'] | '';
  /** Where that action sits: the editor's action path, dot-joined (`2.actions.0`; src/dtl/action-position.ts). */
  position: string;
  /** What was traced, as JSON (a structure stays a structure); for `xform`, the error message. */
  value: JsonValue;
  /** The value as text (a structure as its JSON text). */
  text: string;
  line: number;
  /** Set by `$$$LOGINFO` / `$$$LOGWARNING` / `$$$LOGERROR` / `$$$LOGALERT`: the event-log type to use instead of Trace. */
  level?: 'Info' | 'Warning' | 'Error' | 'Alert';
}

export interface DtlResult {
  status: 'ok' | 'error';
  errors: DtlRunError[];
  /** The target as built (also after an error: what the caller holds). */
  target: JsonValue;
  /** Class of the target: the target doc type for `IOP.Message`, else the target class. */
  targetClassname: string;
  trace: DtlTraceEntry[];
}

export interface SqlQuery {
  /** The SELECT without its INTO clause, host variables replaced by `?`. */
  text: string;
  params: (string | number)[];
  /** How many INTO variables the statement fills. */
  columns: number;
}

export interface PythonRequest {
  /** `eval`: one expression, its value is returned. `exec`: a `<code>` body. */
  mode: 'eval' | 'exec';
  code: string;
  /** Python from/import statements of the transform, one per line. */
  imports: string;
  source: JsonValue;
  target: JsonValue;
  aux: JsonValue;
  locals: Record<string, JsonValue>;
}

export interface PythonResult {
  value?: JsonValue;
  /** For `exec`: the target after the code ran (absent = unchanged). */
  target?: JsonValue;
  /** For `exec`: the locals after the code ran (absent = unchanged). */
  locals?: Record<string, JsonValue>;
}

export interface DtlHost {
  /** A lookup-table value; undefined when the table or the key is absent. Keys are exact. */
  lookup?(table: string, key: string): string | undefined;
  /** `##class(Cls).Method(args)`; throw to signal an error. Undefined hook → <CLASS DOES NOT EXIST>. */
  classMethod?(className: string, method: string, args: unknown[]): unknown;
  /** A compiled transform for `<subtransform class=…>` (see `CompiledTransform.dependencies`). */
  subtransform?(className: string): CompiledTransform | undefined;
  /** Runs a read-only SELECT; returns the first row's values in INTO order, or undefined for no row. */
  runSql?(query: SqlQuery): (string | number | null)[] | undefined | Promise<(string | number | null)[] | undefined>;
  /** Runs Python (language="python" expressions and Python `<code>`). */
  runPython?(request: PythonRequest): PythonResult | Promise<PythonResult>;
  /** The clock ($H, ..CurrentDateTime). Default: the system clock. */
  now?(): Date;
}

export interface RunOptions {
  host?: DtlHost;
  /** The caller's target for create="existing" (modified in place). */
  target?: JsonValue;
  aux?: JsonValue;
  /** This run only: overrides the transform's own parameters (subtransforms keep theirs). */
  parameters?: Partial<TransformParameters>;
}

export interface CompiledTransform {
  readonly name: string;
  readonly ast: TransformNode;
  readonly parameters: TransformParameters;
  readonly create: CreateMode;
  readonly language: Language;
  /** Classes called by `<subtransform>`: the host must be able to provide them. */
  readonly dependencies: string[];
  /** True when a run needs the host's Python or SQL hook. */
  readonly usesPython: boolean;
  readonly usesSql: boolean;
  run(source: JsonValue, options?: RunOptions): Promise<DtlResult>;
  /** The same without a promise, for transforms that use no Python, SQL or subtransform. */
  runSync(source: JsonValue, options?: RunOptions): DtlResult;
}
