/**
 * Compiles the transform class's own methods into the scope expressions see, so `..Name(args)`
 * calls them. Each call gets fresh locals (IRIS methods are procedure blocks): parameters bound
 * from the arguments or their defaults; `Quit value` / `Return value` is the result.
 */
import type { ClassMethodNode } from './ast.ts';
import { compileExpr, type ClassReference, type CompileScope, type MethodSlot } from './compile-expr.ts';
import { ObjectScriptError, type RunContext } from './context.ts';
import { DtlSyntaxError, shift, type DtlDiagnostic } from './diagnostics.ts';
import { parseExpression } from './expr-parser.ts';
import { compileCode } from './objectscript-code.ts';

const MAX_DEPTH = 1000;

function compileMethod(method: ClassMethodNode, scope: CompileScope, depth: { now: number }): MethodSlot['call'] {
  if (method.language === 'python') {
    return () => {
      throw new ObjectScriptError('PYTHON', `class method ${method.name} is written in Python, which DTL expressions cannot call`);
    };
  }
  const defaults = method.params.map((p) => (p.defaultValue === null ? null : compileExpr(parseExpression(p.defaultValue, method.pos), scope)));
  let body: (ctx: RunContext) => unknown;
  if (method.codeMode === 'expression') {
    const lead = method.body.length - method.body.trimStart().length;
    body = compileExpr(parseExpression(method.body.trim(), shift(method.textPos, method.body, lead)), scope);
  } else {
    const block = compileCode(method.body, method.textPos, scope, true);
    body = (ctx) => {
      block(ctx);
      return ctx.methodResult ?? '';
    };
  }
  return (ctx, args) => {
    if (depth.now >= MAX_DEPTH) throw new ObjectScriptError('FRAMESTACK', `class method calls nested deeper than ${MAX_DEPTH}`);
    const locals = Object.create(null) as Record<string, unknown>;
    method.params.forEach((p, i) => {
      const given = args[i];
      const value = given !== undefined ? given : defaults[i]?.(ctx);
      if (value !== undefined) locals[p.name] = value;
    });
    const saved = { locals: ctx.locals, result: ctx.methodResult };
    ctx.locals = locals;
    ctx.methodResult = undefined;
    depth.now++;
    try {
      return body(ctx);
    } finally {
      depth.now--;
      ctx.locals = saved.locals;
      ctx.methodResult = saved.result;
    }
  };
}

/** The scope of a transform: its class methods, compiled (errors go to `diagnostics`). */
export function compileClassMethods(
  methods: ClassMethodNode[],
  document: string,
  diagnostics: DtlDiagnostic[],
  classReferences: ClassReference[] = [],
): CompileScope {
  const slots = new Map<string, MethodSlot>();
  const scope: CompileScope = { methods: slots, classReferences };
  const depth = { now: 0 };
  // Names first, so methods can call each other (and themselves) in any order.
  for (const m of methods) {
    slots.set(m.name, {
      minArgs: 0,
      maxArgs: m.params.length,
      call: () => {
        throw new ObjectScriptError('METHOD DOES NOT EXIST', `${m.name} failed to compile`);
      },
    });
  }
  for (const m of methods) {
    try {
      slots.get(m.name)!.call = compileMethod(m, scope, depth);
    } catch (error) {
      if (!(error instanceof DtlSyntaxError)) throw error;
      diagnostics.push({ document, ...error.position, severity: 'error', message: `class method ${m.name}: ${error.message}` });
    }
  }
  return scope;
}
