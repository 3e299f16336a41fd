/**
 * Stage 4a: expression trees → closures `(ctx) => value`, built once per transform. Unknown
 * functions, wrong argument counts and misplaced syntax are reported at compile time with their
 * position; ObjectScript runtime errors (<UNDEFINED>, <DIVIDE>, …) carry the position too.
 */
import { ObjectScriptError, userTrace, type RunContext } from './context.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';
import type { BinaryOp, ExprNode, PathStep } from './expr-ast.ts';
import { builtinClassMethod } from './builtin-classes.ts';
import { FUNCTION_SET, UNSUPPORTED_FUNCTIONS } from './functions.ts';
import { MISSING, readPath, type ResolvedStep } from './json-path.ts';
import { applyOperator, OPERATORS } from './operators.ts';
import { callMethod } from './methods.ts';
import { compilePattern, patternFromText } from './pattern.ts';
import { SPECIAL_VARIABLES, StarRef, systemFunction, systemFunctionName } from './system-functions.ts';
import { bool, toNum, toStr, truthy } from './values.ts';

export type Fn = (ctx: RunContext) => unknown;
export type StepsFn = (ctx: RunContext) => ResolvedStep[];

/** A class method of the transform's own class, callable as `..Name(args)`; `call` is set once compiled. */
export interface MethodSlot {
  minArgs: number;
  maxArgs: number;
  call: (ctx: RunContext, args: unknown[]) => unknown;
}

/** A `##class(Name).Method()` that goes to the host (not a built-in class), where it is written. */
export interface ClassReference {
  className: string;
  method: string;
  pos: Position;
  /** The action it is in (src/dtl/action-position.ts); absent inside a class method. */
  position?: string;
}

/** What names an expression may call beyond the function set: the class's own methods. */
export interface CompileScope {
  methods?: ReadonlyMap<string, MethodSlot>;
  /** Collects the host class calls met while compiling, for the checks that know the namespace. */
  classReferences?: ClassReference[];
}

export const EMPTY_SCOPE: CompileScope = {};

function undefinedVariable(name: string, pos: Position): never {
  throw new ObjectScriptError('UNDEFINED', name, pos);
}

/** A variable or expression used as an index: a positive integer is a position, anything else a key. */
function indexFrom(value: unknown): ResolvedStep {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return { t: 'pos', n: value };
  const text = toStr(value);
  return /^[1-9]\d*$/.test(text) ? { t: 'pos', n: Number(text) } : { t: 'key', key: text };
}

/** Steps → a function giving resolved steps (a constant array when no step depends on a variable). */
export function compileSteps(steps: PathStep[], scope: CompileScope = EMPTY_SCOPE): StepsFn {
  const parts: (ResolvedStep | ((ctx: RunContext) => ResolvedStep))[] = steps.map((step) => {
    if (step.kind === 'member') return { t: 'member', name: step.name };
    const ix = step.index;
    switch (ix.k) {
      case 'all':
        return { t: 'all' };
      case 'count':
        return { t: 'count' };
      case 'last':
        return { t: 'last' };
      case 'num':
        return { t: 'pos', n: ix.n };
      case 'key':
        return { t: 'key', key: ix.key };
      case 'var': {
        const name = ix.name;
        return (ctx: RunContext) => {
          const v = ctx.locals[name];
          return v === undefined ? undefinedVariable(name, step.pos) : indexFrom(v);
        };
      }
      case 'expr': {
        const fn = compileExpr(ix.expr, scope);
        return (ctx: RunContext) => indexFrom(fn(ctx));
      }
    }
  });
  if (parts.every((p) => typeof p !== 'function')) {
    const fixed = parts as ResolvedStep[];
    return () => fixed;
  }
  return (ctx) => {
    const out = new Array<ResolvedStep>(parts.length);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      out[i] = typeof p === 'function' ? p(ctx) : p;
    }
    return out;
  };
}

/** The value a path's root names. */
export function compileRoot(root: string, pos: Position): Fn {
  switch (root) {
    case 'source':
      return (ctx) => ctx.source;
    case 'target':
      return (ctx) => ctx.target;
    case 'aux':
      return (ctx) => ctx.aux ?? '';
    case 'process':
    case 'context':
      return () => '';
    default:
      return (ctx) => {
        const v = ctx.locals[root];
        return v === undefined ? undefinedVariable(root, pos) : v;
      };
  }
}

/** Reads a path node: the raw JSON value, a Fanout, or MISSING. */
export function compileRawRead(node: Extract<ExprNode, { kind: 'path' }>, scope: CompileScope = EMPTY_SCOPE): Fn {
  const root = compileRoot(node.root, node.pos);
  if (node.steps.length === 0) return root;
  const steps = compileSteps(node.steps, scope);
  return (ctx) => readPath(root(ctx), steps(ctx));
}

function binary(op: BinaryOp, left: Fn, right: Fn, pos: Position): Fn {
  if (op === '&&') return (ctx) => bool(truthy(left(ctx)) && truthy(right(ctx)));
  if (op === '||') return (ctx) => bool(truthy(left(ctx)) || truthy(right(ctx)));
  const apply = OPERATORS[op];
  if (op === '/' || op === '\\' || op === '#' || op === '**') return (ctx) => applyOperator(op, left(ctx), right(ctx), pos);
  return (ctx) => apply(left(ctx), right(ctx));
}

function compileArgs(args: (ExprNode | null)[], scope: CompileScope, allowStar = false): Fn[] {
  return args.map((a) => (a === null ? () => undefined : compileExpr(a, scope, allowStar)));
}

/** Calls a library function; errors without a position get the call's position. */
function call(pos: Position, run: (ctx: RunContext, args: unknown[]) => unknown, args: Fn[]): Fn {
  return (ctx) => {
    const values = args.map((a) => a(ctx));
    try {
      return run(ctx, values);
    } catch (error) {
      if (error instanceof ObjectScriptError && error.pos === null) throw withPos(error, pos);
      throw error;
    }
  };
}

function withPos(error: ObjectScriptError, pos: Position): ObjectScriptError {
  const copy = new ObjectScriptError('X', '', pos);
  copy.message = error.message;
  return copy;
}

function checkArity(kind: string, name: string, min: number, max: number, count: number, pos: Position): void {
  if (count < min || count > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw new DtlSyntaxError(`${kind}${name} takes ${expected} argument(s), ${count} given`, pos);
  }
}

/** `$GET(ref, default)` and `$DATA(ref)`: read without raising <UNDEFINED>. */
function safeRead(node: ExprNode | null, fnName: string, pos: Position, scope: CompileScope): Fn {
  if (node?.kind === 'local') return (ctx) => (node.name in ctx.locals ? ctx.locals[node.name] : MISSING);
  if (node?.kind === 'path') {
    const steps = compileSteps(node.steps, scope);
    const isDoc = ['source', 'target', 'aux', 'process', 'context'].includes(node.root);
    return (ctx) => {
      const root = isDoc ? compileRoot(node.root, node.pos)(ctx) : ctx.locals[node.root];
      return root === undefined ? MISSING : readPath(root, steps(ctx));
    };
  }
  throw new DtlSyntaxError(`$${fnName} needs a variable or a property path as its first argument`, node?.pos ?? pos);
}

const LOG_MACROS: Record<string, 'Info' | 'Warning' | 'Error' | 'Alert'> = { LOGINFO: 'Info', LOGWARNING: 'Warning', LOGERROR: 'Error', LOGALERT: 'Alert' };

/** The macros `<code>` blocks use: status tests and trace / log output (as trace entries). */
function compileMacro(name: string, args: Fn[], pos: Position): Fn {
  const macro = name.toUpperCase();
  const arity = macro === 'OK' ? 0 : 1;
  if (macro !== 'OK' && macro !== 'ISOK' && macro !== 'ISERR' && macro !== 'TRACE' && !LOG_MACROS[macro]) {
    throw new DtlSyntaxError(
      `unknown macro $$$${name} (supported: $$$OK, $$$ISOK, $$$ISERR, $$$TRACE, $$$LOGINFO, $$$LOGWARNING, $$$LOGERROR, $$$LOGALERT)`,
      pos,
    );
  }
  checkArity('$$$', name, arity, arity, args.length, pos);
  const arg = args[0] ?? (() => '');
  switch (macro) {
    case 'OK':
      return () => bool(true);
    case 'ISOK':
      return (ctx) => bool(truthy(arg(ctx)));
    case 'ISERR':
      return (ctx) => bool(!truthy(arg(ctx)));
    default: {
      const level = LOG_MACROS[macro];
      return (ctx) => {
        userTrace(ctx, arg(ctx), pos.line, level);
        return '';
      };
    }
  }
}

export function compileExpr(node: ExprNode, scope: CompileScope = EMPTY_SCOPE, allowStar = false): Fn {
  switch (node.kind) {
    case 'string': {
      const v = node.value;
      return () => v;
    }
    case 'number': {
      const v = node.value;
      return () => v;
    }
    case 'local': {
      const name = node.name;
      if (name === 'source' || name === 'target') return compileRoot(name, node.pos);
      return (ctx) => {
        const v = ctx.locals[name];
        return v === undefined ? undefinedVariable(name, node.pos) : v;
      };
    }
    case 'path': {
      const read = compileRawRead(node, scope);
      if (node.subscripted) {
        const name = node.root;
        return (ctx) => {
          const v = read(ctx);
          return v === MISSING ? undefinedVariable(`${name}(…)`, node.pos) : v;
        };
      }
      return (ctx) => {
        const v = read(ctx);
        return v === MISSING ? '' : v;
      };
    }
    case 'method': {
      const target = compileExpr(node.target, scope);
      const args = compileArgs(node.args, scope);
      const name = node.name;
      return (ctx) =>
        callMethod(
          ctx,
          target(ctx),
          name,
          args.map((a) => a(ctx)),
          node.pos,
        );
    }
    case 'unary': {
      const operand = compileExpr(node.operand, scope);
      if (node.op === '-') return (ctx) => toNum(operand(ctx)).neg();
      if (node.op === '+') return (ctx) => toNum(operand(ctx));
      return (ctx) => bool(!truthy(operand(ctx)));
    }
    case 'binary': {
      if (node.left.kind === 'special' && node.left.name === '*' && (node.op === '-' || node.op === '+')) {
        if (!allowStar) throw new DtlSyntaxError('"*" is only allowed as a position in $EXTRACT', node.left.pos);
        const right = compileExpr(node.right, scope);
        const sign = node.op === '-' ? -1 : 1;
        return (ctx) => new StarRef(sign * toNum(right(ctx)).trunc().toJs());
      }
      return binary(node.op, compileExpr(node.left, scope), compileExpr(node.right, scope), node.pos);
    }
    case 'pattern': {
      const subject = compileExpr(node.subject, scope);
      const negated = node.negated;
      if (Array.isArray(node.pattern)) {
        const re = compilePattern(node.pattern);
        return (ctx) => bool(re.test(toStr(subject(ctx))) !== negated);
      }
      const indirect = compileExpr(node.pattern, scope);
      return (ctx) => {
        const text = toStr(indirect(ctx));
        let re: RegExp;
        try {
          re = patternFromText(text);
        } catch {
          throw new ObjectScriptError('SYNTAX', `bad pattern "${text}"`, node.pos);
        }
        return bool(re.test(toStr(subject(ctx))) !== negated);
      };
    }
    case 'function': {
      // The class's own methods come first: a subclass method overrides the inherited function set.
      const method = scope.methods?.get(node.name);
      if (method) {
        checkArity('..', node.name, method.minArgs, method.maxArgs, node.args.length, node.pos);
        return call(node.pos, (ctx, values) => method.call(ctx, values), compileArgs(node.args, scope));
      }
      const def = FUNCTION_SET[node.name];
      if (!def) {
        const why = UNSUPPORTED_FUNCTIONS[node.name];
        throw new DtlSyntaxError(why ? `..${node.name} is not supported: ${why}` : `unknown function ..${node.name}`, node.pos);
      }
      checkArity('..', node.name, def.min, def.max, node.args.length, node.pos);
      return call(node.pos, def.call, compileArgs(node.args, scope));
    }
    case 'system': {
      if (node.name.startsWith('$$$')) return compileMacro(node.name.slice(3), compileArgs(node.args, scope), node.pos);
      const name = systemFunctionName(node.name);
      if (name === 'GET' || name === 'DATA') {
        checkArity('$', name, 1, name === 'GET' ? 2 : 1, node.args.length, node.pos);
        const read = safeRead(node.args[0] ?? null, name, node.pos, scope);
        if (name === 'DATA') return (ctx) => bool(read(ctx) !== MISSING);
        const fallback = node.args[1] ? compileExpr(node.args[1], scope) : () => '';
        return (ctx) => {
          const v = read(ctx);
          return v === MISSING ? fallback(ctx) : v;
        };
      }
      const def = systemFunction(name);
      if (!def) throw new DtlSyntaxError(`unknown function $${node.name}`, node.pos);
      checkArity('$', name, def.min, def.max, node.args.length, node.pos);
      return call(node.pos, def.call, compileArgs(node.args, scope, name === 'EXTRACT'));
    }
    case 'special': {
      if (node.name === '*') {
        if (!allowStar) throw new DtlSyntaxError('"*" is only allowed as a position in $EXTRACT', node.pos);
        return () => new StarRef(0);
      }
      const get = SPECIAL_VARIABLES[node.name];
      if (!get) throw new DtlSyntaxError(`unknown special variable $${node.name}`, node.pos);
      return get;
    }
    case 'classMethod': {
      const args = compileArgs(node.args, scope);
      const { className, method } = node;
      const builtin = builtinClassMethod(className, method);
      if (builtin) {
        checkArity(`##class(${className}).`, method, builtin.min, builtin.max, args.length, node.pos);
        return call(node.pos, builtin.call, args);
      }
      scope.classReferences?.push({ className, method, pos: node.pos });
      return call(
        node.pos,
        (ctx, values) => {
          if (!ctx.host.classMethod) throw new ObjectScriptError('CLASS DOES NOT EXIST', `${className} (this host offers no class methods)`);
          return ctx.host.classMethod(className, method, values);
        },
        args,
      );
    }
    case 'case': {
      const subject = compileExpr(node.subject, scope);
      const pairs = node.pairs.map((p) => ({ when: compileExpr(p.when, scope), then: compileExpr(p.then, scope) }));
      const otherwise = node.otherwise ? compileExpr(node.otherwise, scope) : null;
      return (ctx) => {
        const value = toStr(subject(ctx));
        for (const p of pairs) if (toStr(p.when(ctx)) === value) return p.then(ctx);
        if (otherwise) return otherwise(ctx);
        throw new ObjectScriptError('ILLEGAL VALUE', `$CASE has no match for "${value}"`, node.pos);
      };
    }
    case 'select': {
      const pairs = node.pairs.map((p) => ({ when: compileExpr(p.when, scope), then: compileExpr(p.then, scope) }));
      return (ctx) => {
        for (const p of pairs) if (truthy(p.when(ctx))) return p.then(ctx);
        throw new ObjectScriptError('SELECT', 'no $SELECT condition is true', node.pos);
      };
    }
  }
}
