/**
 * Compile once, run many: `compileTransform(ast)` validates every expression and path (all errors
 * at once, positioned) and returns a `CompiledTransform` whose `run` executes the closures.
 */
import { ConveyorError } from '../core/errors.ts';
import type { TransformNode } from './ast.ts';
import { compileActions, type CompileState } from './compile-actions.ts';
import { compileClassMethods } from './compile-methods.ts';
import { newContext, ObjectScriptError, type RunContext } from './context.ts';
import { failWithDiagnostics, type DtlDiagnostic } from './diagnostics.ts';
import type { Step } from './steps.ts';
import type { CompiledTransform, DtlResult, RunOptions } from './types.ts';
import { cloneJson, type JsonValue } from './values.ts';

export interface CheckResult {
  diagnostics: DtlDiagnostic[];
  state: CompileState;
  body: Step;
}

/** Validation: parses every expression, path and code body, collecting positioned diagnostics. */
export function checkTransform(ast: TransformNode): CheckResult {
  const diagnostics: DtlDiagnostic[] = [];
  const scope = compileClassMethods(ast.classMethods, ast.document, diagnostics);
  const state: CompileState = { transform: ast, scope, diagnostics, dependencies: new Set(), usesPython: false, usesSql: false, subtransforms: [] };
  for (const w of ast.warnings) state.diagnostics.push({ document: ast.document, ...w.pos, severity: 'warning', message: w.message });
  if (ast.targetClass === 'IOP.Message' && ast.targetDocType === '') {
    // IoP sets the target's classname from the doc type: without one the result is no Python class.
    state.diagnostics.push({
      document: ast.document,
      ...ast.pos,
      severity: 'warning',
      message: 'targetClass is IOP.Message but targetDocType is empty: the target will have no message class',
    });
  }
  const body = compileActions(state);
  return { diagnostics: state.diagnostics, state, body };
}

/** The problems of a transform (errors and warnings), without throwing. */
export function validateTransform(ast: TransformNode): DtlDiagnostic[] {
  return checkTransform(ast).diagnostics;
}

function targetClassname(ast: TransformNode): string {
  return ast.targetClass === 'IOP.Message' ? ast.targetDocType : ast.targetClass;
}

function finish(ctx: RunContext, ast: TransformNode, failure: unknown): DtlResult {
  if (failure !== undefined) {
    if (!(failure instanceof ObjectScriptError)) throw failure;
    const pos = failure.pos ?? ast.pos;
    const { action, position } = ctx.at;
    ctx.errors.push({ kind: 'runtime', message: failure.message, document: ast.document, line: pos.line, column: pos.column, action, position });
  }
  return {
    status: ctx.errors.length > 0 ? 'error' : 'ok',
    errors: ctx.errors,
    target: ctx.target as JsonValue,
    targetClassname: targetClassname(ast),
    trace: ctx.trace,
  };
}

/** Runs the compiled body; synchronous unless a step needs Python, SQL or a subtransform. */
export function execute(ast: TransformNode, body: Step, source: JsonValue, options: RunOptions = {}): DtlResult | Promise<DtlResult> {
  const host = options.host ?? {};
  let target: unknown;
  if (ast.create === 'existing') {
    if (options.target === undefined || options.target === null) {
      return {
        status: 'error',
        errors: [{ kind: 'runtime', message: `create="existing" needs the caller's target, and none was given`, document: ast.document, ...ast.pos }],
        target: {},
        targetClassname: targetClassname(ast),
        trace: [],
      };
    }
    target = options.target;
  } else target = ast.create === 'copy' ? cloneJson(source) : {};
  const params = options.parameters ? { ...ast.parameters, ...options.parameters } : ast.parameters;
  const ctx = newContext({ source, target, aux: options.aux ?? '', host, params, document: ast.document });
  let pending;
  try {
    pending = body(ctx);
  } catch (error) {
    return finish(ctx, ast, error);
  }
  if (pending === undefined) return finish(ctx, ast, undefined);
  return pending.then(
    () => finish(ctx, ast, undefined),
    (error: unknown) => finish(ctx, ast, error),
  );
}

/** Compiles a parsed transform; throws ConveyorError ERR_DTL listing every positioned error. */
export function compileTransform(ast: TransformNode): CompiledTransform {
  const { diagnostics, state, body } = checkTransform(ast);
  if (diagnostics.some((d) => d.severity === 'error')) failWithDiagnostics(ast.document, diagnostics);
  return {
    name: ast.className ?? ast.document,
    ast,
    parameters: ast.parameters,
    create: ast.create,
    language: ast.language,
    dependencies: [...state.dependencies],
    usesPython: state.usesPython,
    usesSql: state.usesSql,
    run: async (source, options) => execute(ast, body, source, options),
    runSync: (source, options) => {
      if (state.usesPython || state.usesSql || state.dependencies.size > 0) {
        throw new ConveyorError('ERR_DTL', `${ast.document}: the transform uses Python, SQL or subtransforms; call run(), not runSync()`);
      }
      return execute(ast, body, source, options) as DtlResult;
    },
  };
}
