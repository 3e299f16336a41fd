/**
 * Python in a transform (`language="python"`, `languageOverride="python"`, Python `<code>`): the text
 * is handed to the host's `runPython` with the documents and locals as JSON; values come back as
 * JSON (dtl-reference §1.19). The Python worker is the real host; the engine only moves data.
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import type { Position } from './diagnostics.ts';
import type { PythonRequest, PythonResult } from './types.ts';
import { toJson, type JsonValue } from './values.ts';

function localsAsJson(ctx: RunContext): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const key in ctx.locals) out[key] = toJson(ctx.locals[key]);
  return out;
}

async function call(ctx: RunContext, request: PythonRequest, pos: Position): Promise<PythonResult> {
  if (!ctx.host.runPython) throw new ObjectScriptError('PYTHON', 'this host cannot run Python (no runPython hook)', pos);
  try {
    return await ctx.host.runPython(request);
  } catch (error) {
    if (error instanceof ObjectScriptError) throw error;
    throw new ObjectScriptError('PYTHON EXCEPTION', error instanceof Error ? error.message : String(error), pos);
  }
}

function request(ctx: RunContext, mode: 'eval' | 'exec', code: string, imports: string): PythonRequest {
  return {
    mode,
    code,
    imports,
    source: toJson(ctx.source),
    target: toJson(ctx.target),
    aux: toJson(ctx.aux ?? ''),
    locals: localsAsJson(ctx),
  };
}

/**
 * Curly paths are DTL syntax, not Python: outside string literals `source.{a.b(1)}` becomes
 * `source.GetValueAt("a.b(1)")` so a Python expression can use the same paths as the editor writes.
 */
export function rewriteCurlyPaths(code: string): string {
  return code
    .split(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\b(source|target)\.\{([^{}]*)\}/g, (_m, root: string, path: string) => `${root}.GetValueAt(${JSON.stringify(path.trim())})`),
    )
    .join('');
}

/** A Python expression: its value, as JSON. */
export function pythonExpression(code: string, imports: string, pos: Position): (ctx: RunContext) => Promise<unknown> {
  const text = rewriteCurlyPaths(code.trim());
  return async (ctx) => (await call(ctx, request(ctx, 'eval', text, imports), pos)).value ?? '';
}

/** A Python `<code>` body: may change the target and the locals. */
export function pythonBlock(code: string, imports: string, pos: Position): (ctx: RunContext) => Promise<void> {
  return async (ctx) => {
    const result = await call(ctx, request(ctx, 'exec', code, imports), pos);
    if (result.target !== undefined) {
      if (
        typeof ctx.target === 'object' &&
        ctx.target !== null &&
        !Array.isArray(ctx.target) &&
        typeof result.target === 'object' &&
        result.target !== null &&
        !Array.isArray(result.target)
      ) {
        // Keep the caller's object (create="existing") and replace its contents.
        const target = ctx.target as Record<string, unknown>;
        for (const key of Object.keys(target)) delete target[key];
        Object.assign(target, result.target);
      } else ctx.target = result.target;
    }
    if (result.locals) Object.assign(ctx.locals, result.locals);
  };
}
