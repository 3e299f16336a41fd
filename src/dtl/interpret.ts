/**
 * A tree-walking interpreter over the transform model: the reference the compiled closures are
 * measured against (bench/dtl.ts). Expressions are parsed once into syntax trees, then every run
 * walks the trees. It covers the ObjectScript actions (assign, foreach, if, switch, break, group,
 * trace, comment); `<code>`, `<sql>`, `<subtransform>` and Python need `compileTransform`.
 */
import { ConveyorError } from '../core/errors.ts';
import { actionList, actionPosition, type ActionWhere } from './action-position.ts';
import type { ActionNode, AssignNode, TransformNode } from './ast.ts';
import { builtinClassMethod } from './builtin-classes.ts';
import { actionError, storeRepeating } from './compile-actions.ts';
import { FLOW_BREAK, FLOW_NORMAL, FLOW_STOP, newContext, ObjectScriptError, userTrace, type RunContext } from './context.ts';
import type { ExprNode, PathStep } from './expr-ast.ts';
import { isDocumentRoot, parseExpression } from './expr-parser.ts';
import { FUNCTION_SET } from './functions.ts';
import { MISSING, nextKey, PathError, readPath, writePath, type ResolvedStep, type WriteAction } from './json-path.ts';
import { callMethod } from './methods.ts';
import { applyOperator } from './operators.ts';
import { compilePattern, patternFromText } from './pattern.ts';
import { SPECIAL_VARIABLES, StarRef, systemFunction, systemFunctionName } from './system-functions.ts';
import type { DtlResult, RunOptions } from './types.ts';
import { bool, cloneJson, Fanout, toJson, toNum, toStr, truthy, type JsonValue } from './values.ts';

export interface InterpretedTransform {
  run(source: JsonValue, options?: RunOptions): DtlResult;
}

class Interpreter {
  private readonly parsed = new WeakMap<object, Map<string, ExprNode>>();
  private readonly where = new WeakMap<ActionNode, ActionWhere>();

  constructor(private readonly ast: TransformNode) {
    if (ast.classMethods.length > 0)
      throw new ConveyorError('ERR_DTL', `${ast.document}: the AST interpreter does not run class methods; use compileTransform`);
    this.prepare(ast.actions, '');
  }

  /** Parses each expression attribute once; refuses what the interpreter does not run. */
  private prepare(actions: ActionNode[], list: string): void {
    for (const [index, a] of actions.entries()) {
      if (a.disabled) continue;
      const position = actionPosition(list, index);
      this.where.set(a, { action: a.kind, position });
      if (a.kind === 'code' || a.kind === 'sql' || a.kind === 'subtransform' || a.languageOverride === 'python' || this.ast.language === 'python') {
        throw new ConveyorError(
          'ERR_DTL',
          `${this.ast.document}:${a.pos.line}:${a.pos.column}: the AST interpreter does not run <${a.kind}> or Python; use compileTransform`,
        );
      }
      const exprs = new Map<string, ExprNode>();
      const add = (attr: string, text: string): void => {
        if (text.trim() !== '') exprs.set(attr, parseExpression(text, a.attrPos[attr] ?? a.pos));
      };
      if (a.kind === 'assign') {
        add('property', a.property);
        if (a.action !== 'remove' && a.action !== 'clear') add('value', a.value);
        add('key', a.key);
      } else if (a.kind === 'foreach') add('property', a.property);
      else if (a.kind === 'if') add('condition', a.condition);
      else if (a.kind === 'trace') add('value', a.value);
      this.parsed.set(a, exprs);
      if (a.kind === 'foreach' || a.kind === 'group') this.prepare(a.actions, actionList(position, 'actions'));
      if (a.kind === 'if') {
        this.prepare(a.whenTrue ?? [], actionList(position, 'whenTrue'));
        this.prepare(a.whenFalse ?? [], actionList(position, 'whenFalse'));
      }
      if (a.kind === 'switch') {
        for (const [caseIndex, c] of a.cases.entries()) {
          this.parsed.set(c, new Map([['condition', parseExpression(c.condition, c.attrPos.condition ?? c.pos)]]));
          this.prepare(c.actions, actionList(position, `cases.${caseIndex}.actions`));
        }
        this.prepare(a.otherwise?.actions ?? [], actionList(position, 'otherwise'));
      }
    }
  }

  private expr(node: object, attr: string): ExprNode {
    return this.parsed.get(node)!.get(attr)!;
  }

  run(source: JsonValue, options: RunOptions): DtlResult {
    const target = this.ast.create === 'copy' ? cloneJson(source) : this.ast.create === 'existing' ? options.target : {};
    const ctx = newContext({ source, target, aux: options.aux ?? '', host: options.host ?? {}, params: this.ast.parameters, document: this.ast.document });
    try {
      this.block(this.ast.actions, ctx, 0);
    } catch (error) {
      if (!(error instanceof ObjectScriptError)) throw error;
      const pos = error.pos ?? this.ast.pos;
      const { action, position } = ctx.at;
      ctx.errors.push({ kind: 'runtime', message: error.message, document: this.ast.document, line: pos.line, column: pos.column, action, position });
    }
    const targetClassname = this.ast.targetClass === 'IOP.Message' ? this.ast.targetDocType : this.ast.targetClass;
    return { status: ctx.errors.length ? 'error' : 'ok', errors: ctx.errors, target: ctx.target as JsonValue, targetClassname, trace: ctx.trace };
  }

  private block(actions: ActionNode[], ctx: RunContext, depth: number): void {
    for (const a of actions) {
      if (a.disabled || a.kind === 'comment') continue;
      ctx.at = this.where.get(a)!;
      this.action(a, ctx, depth);
      if (ctx.flow !== FLOW_NORMAL) return;
    }
  }

  private action(a: ActionNode, ctx: RunContext, depth: number): void {
    switch (a.kind) {
      case 'assign':
        return this.assign(a, ctx);
      case 'foreach': {
        const node = this.expr(a, 'property') as Extract<ExprNode, { kind: 'path' }>;
        const steps =
          node.steps[node.steps.length - 1]?.kind === 'index' && (node.steps[node.steps.length - 1] as { index: { k: string } }).index.k === 'all'
            ? node.steps.slice(0, -1)
            : node.steps;
        const key = a.key.trim();
        ctx.locals[key] = '';
        const where = ctx.at;
        for (;;) {
          ctx.at = where;
          let c = readPath(this.root(node.root, ctx), this.steps(steps, ctx));
          if (c instanceof Fanout) c = c.items;
          else if (ctx.params.TREATEMPTYREPEATINGFIELDASNULL && (c === '' || (Array.isArray(c) && c.length === 0))) c = MISSING;
          const next = nextKey(c, ctx.locals[key]);
          ctx.locals[key] = next;
          if (next === '') return;
          this.block(a.actions, ctx, depth + 1);
          if (ctx.flow === FLOW_BREAK) ctx.flow = FLOW_NORMAL;
          else if (ctx.flow === FLOW_NORMAL) continue;
          return;
        }
      }
      case 'if':
        return this.block((truthy(this.eval(this.expr(a, 'condition'), ctx)) ? a.whenTrue : a.whenFalse) ?? [], ctx, depth);
      case 'switch': {
        for (const c of a.cases) if (!c.disabled && truthy(this.eval(this.expr(c, 'condition'), ctx))) return this.block(c.actions, ctx, depth);
        return this.block(a.otherwise?.actions ?? [], ctx, depth);
      }
      case 'break':
        ctx.flow = depth > 0 ? FLOW_BREAK : FLOW_STOP;
        return;
      case 'group':
        return this.block(a.actions, ctx, depth);
      case 'trace':
        userTrace(ctx, this.eval(this.expr(a, 'value'), ctx), a.pos.line);
        return;
      default:
        return;
    }
  }

  private assign(a: AssignNode, ctx: RunContext): void {
    const key = a.key.trim() === '' ? '' : toStr(this.eval(this.expr(a, 'key'), ctx));
    const valueNode = this.parsed.get(a)!.get('value');
    let v: unknown = '';
    if (valueNode) v = valueNode.kind === 'path' && valueNode.steps.length > 0 ? this.read(valueNode, ctx) : this.eval(valueNode, ctx);
    if (v === MISSING) {
      if (!ctx.params.IGNOREMISSINGSOURCE) return actionError(ctx, a.pos, `property not found: ${a.value.trim()}`);
      if (!ctx.params.GENERATEEMPTYSEGMENTS) return;
      v = '';
    }
    const target = this.expr(a, 'property');
    if (target.kind === 'local') {
      ctx.locals[target.name] =
        typeof v === 'object' &&
        v !== null &&
        !(v instanceof StarRef) &&
        (Array.isArray(v) || v instanceof Fanout || Object.getPrototypeOf(v) === Object.prototype)
          ? cloneJson(toJson(v))
          : v;
      return;
    }
    if (target.kind !== 'path' || target.root === 'source') throw new ObjectScriptError('SYNTAX', `cannot assign to ${a.property}`, a.pos);
    if (target.steps.length === 0) {
      ctx.target = toJson(v);
      return;
    }
    const steps = this.steps(target.steps, ctx);
    const container = target.subscripted ? (ctx.locals[target.root] ??= {}) : this.root(target.root, ctx);
    try {
      if (steps[steps.length - 1]!.t === 'all' && a.action === 'set' && key === '') storeRepeating(ctx, container, steps.slice(0, -1), v);
      else writePath(container, steps, a.action as WriteAction, key, toJson(v));
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      actionError(ctx, a.pos, `cannot ${a.action} ${a.property}: ${error.message}`);
    }
  }

  private root(name: string, ctx: RunContext): unknown {
    if (name === 'source') return ctx.source;
    if (name === 'target') return ctx.target;
    if (name === 'aux') return ctx.aux ?? '';
    if (isDocumentRoot(name)) return '';
    return ctx.locals[name];
  }

  private steps(steps: PathStep[], ctx: RunContext): ResolvedStep[] {
    return steps.map((s): ResolvedStep => {
      if (s.kind === 'member') return { t: 'member', name: s.name };
      const ix = s.index;
      if (ix.k === 'num') return { t: 'pos', n: ix.n };
      if (ix.k === 'key') return { t: 'key', key: ix.key };
      if (ix.k === 'all' || ix.k === 'count' || ix.k === 'last') return { t: ix.k };
      const value = ix.k === 'var' ? this.local(ix.name, ctx, s.pos) : this.eval(ix.expr, ctx);
      const text = toStr(value);
      return /^[1-9]\d*$/.test(text) ? { t: 'pos', n: Number(text) } : { t: 'key', key: text };
    });
  }

  private local(name: string, ctx: RunContext, pos: { line: number; column: number }): unknown {
    const v = ctx.locals[name];
    if (v === undefined) throw new ObjectScriptError('UNDEFINED', name, pos);
    return v;
  }

  private read(node: Extract<ExprNode, { kind: 'path' }>, ctx: RunContext): unknown {
    const root = isDocumentRoot(node.root) ? this.root(node.root, ctx) : this.local(node.root, ctx, node.pos);
    return node.steps.length === 0 ? root : readPath(root, this.steps(node.steps, ctx));
  }

  private args(args: (ExprNode | null)[], ctx: RunContext): unknown[] {
    return args.map((a) => (a === null ? undefined : this.eval(a, ctx)));
  }

  eval(node: ExprNode, ctx: RunContext): unknown {
    switch (node.kind) {
      case 'string':
      case 'number':
        return node.value;
      case 'local':
        return this.local(node.name, ctx, node.pos);
      case 'path': {
        const v = this.read(node, ctx);
        if (v === MISSING && node.subscripted) throw new ObjectScriptError('UNDEFINED', `${node.root}(…)`, node.pos);
        return v === MISSING ? '' : v;
      }
      case 'method':
        return callMethod(ctx, this.eval(node.target, ctx), node.name, this.args(node.args, ctx), node.pos);
      case 'unary': {
        const v = this.eval(node.operand, ctx);
        return node.op === '-' ? toNum(v).neg() : node.op === '+' ? toNum(v) : bool(!truthy(v));
      }
      case 'binary': {
        if (node.left.kind === 'special' && node.left.name === '*')
          return new StarRef((node.op === '-' ? -1 : 1) * toNum(this.eval(node.right, ctx)).trunc().toJs());
        if (node.op === '&&') return bool(truthy(this.eval(node.left, ctx)) && truthy(this.eval(node.right, ctx)));
        if (node.op === '||') return bool(truthy(this.eval(node.left, ctx)) || truthy(this.eval(node.right, ctx)));
        return applyOperator(node.op, this.eval(node.left, ctx), this.eval(node.right, ctx), node.pos);
      }
      case 'pattern': {
        const re = Array.isArray(node.pattern) ? compilePattern(node.pattern) : patternFromText(toStr(this.eval(node.pattern, ctx)));
        return bool(re.test(toStr(this.eval(node.subject, ctx))) !== node.negated);
      }
      case 'function':
        return FUNCTION_SET[node.name]!.call(ctx, this.args(node.args, ctx));
      case 'system': {
        const name = systemFunctionName(node.name);
        if (name === 'GET' || name === 'DATA') {
          const ref = node.args[0]!;
          const v =
            ref.kind === 'local'
              ? (ctx.locals[ref.name] ?? MISSING)
              : ref.kind === 'path'
                ? readPath(this.root(ref.root, ctx), this.steps(ref.steps, ctx))
                : MISSING;
          if (name === 'DATA') return bool(v !== MISSING);
          return v === MISSING ? (node.args[1] ? this.eval(node.args[1], ctx) : '') : v;
        }
        return systemFunction(name)!.call(ctx, this.args(node.args, ctx));
      }
      case 'special':
        return node.name === '*' ? new StarRef(0) : SPECIAL_VARIABLES[node.name]!(ctx);
      case 'classMethod': {
        const builtin = builtinClassMethod(node.className, node.method);
        if (builtin) return builtin.call(ctx, this.args(node.args, ctx));
        if (!ctx.host.classMethod) throw new ObjectScriptError('CLASS DOES NOT EXIST', node.className, node.pos);
        return ctx.host.classMethod(node.className, node.method, this.args(node.args, ctx));
      }
      case 'case': {
        const subject = toStr(this.eval(node.subject, ctx));
        for (const p of node.pairs) if (toStr(this.eval(p.when, ctx)) === subject) return this.eval(p.then, ctx);
        if (node.otherwise) return this.eval(node.otherwise, ctx);
        throw new ObjectScriptError('ILLEGAL VALUE', `$CASE has no match for "${subject}"`, node.pos);
      }
      case 'select':
        for (const p of node.pairs) if (truthy(this.eval(p.when, ctx))) return this.eval(p.then, ctx);
        throw new ObjectScriptError('SELECT', 'no $SELECT condition is true', node.pos);
    }
  }
}

/**
 * Prepares a transform for interpretation (expressions parsed, nothing compiled). Validate with
 * `compileTransform` / `validateTransform` first: the interpreter assumes a valid transform.
 */
export function interpretTransform(ast: TransformNode): InterpretedTransform {
  const interpreter = new Interpreter(ast);
  return { run: (source, options = {}) => interpreter.run(source, options) };
}
