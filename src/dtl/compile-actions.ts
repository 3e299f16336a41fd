/**
 * Stage 4b: actions → steps. Every expression, path and `<code>` body is parsed here once; each
 * problem becomes a positioned diagnostic (the compiler keeps going to report them all).
 */
import { actionList, actionPosition, type ActionWhere } from './action-position.ts';
import type { ActionNode, AssignNode, ForeachNode, Language, SubtransformNode, TransformNode } from './ast.ts';
import { compileExpr, compileRawRead, compileSteps, type CompileScope, type StepsFn } from './compile-expr.ts';
import { FLOW_BREAK, FLOW_NORMAL, FLOW_STOP, ObjectScriptError, userTrace, type RunContext } from './context.ts';
import { DtlSyntaxError, type DtlDiagnostic, type Position } from './diagnostics.ts';
import { compileSql, parseEmbeddedSql } from './embedded-sql.ts';
import type { ExprNode } from './expr-ast.ts';
import { parseExpression } from './expr-parser.ts';
import { MISSING, nextKey, PathError, readPath, writePath, type ResolvedStep, type WriteAction } from './json-path.ts';
import { compileCode } from './objectscript-code.ts';
import { pythonBlock, pythonExpression } from './python-hook.ts';
import { sequence, whenReady, type Step } from './steps.ts';
import { cloneJson, Fanout, toJson, toStr, truthy } from './values.ts';

export interface CompileState {
  transform: TransformNode;
  /** The class's own methods, callable as `..Name()`. */
  scope: CompileScope;
  diagnostics: DtlDiagnostic[];
  dependencies: Set<string>;
  usesPython: boolean;
  usesSql: boolean;
  /** Every `<subtransform class>`, with where it is, for the checks that need the namespace (missing classes). */
  subtransforms: { className: string; pos: Position; where: ActionWhere }[];
}

type ValueFn = (ctx: RunContext) => unknown;

/** Records an action's status error: reported (REPORTERRORS=1) or traced as `xform` (0). */
export function actionError(ctx: RunContext, pos: Position, message: string): void {
  const { action, position } = ctx.at;
  if (ctx.params.REPORTERRORS) ctx.errors.push({ kind: 'action', message, document: ctx.document, ...pos, action, position });
  else {
    const text = `${ctx.document}:${pos.line}:${pos.column}: ${message}`;
    ctx.trace.push({ category: 'xform', action, position, value: message, text, line: pos.line });
  }
}

/** Where an assign or subtransform writes. */
type WriteRef =
  | { kind: 'local'; name: string }
  | { kind: 'root' }
  | { kind: 'path'; container: (ctx: RunContext) => unknown; steps: StepsFn; lastIsAll: boolean; text: string }
  | { kind: 'ignored' };

class ActionCompiler {
  constructor(private readonly state: CompileState) {}

  private report(error: unknown, where: ActionWhere): void {
    if (!(error instanceof DtlSyntaxError)) throw error;
    this.state.diagnostics.push({
      document: this.state.transform.document,
      ...error.position,
      severity: 'error',
      message: error.message,
      position: where.position,
    });
  }

  private language(node: { languageOverride: Language | null }): Language {
    return node.languageOverride ?? this.state.transform.language;
  }

  private at(node: { attrPos: Record<string, Position>; pos: Position }, attr: string): Position {
    return node.attrPos[attr] ?? node.pos;
  }

  /** An expression attribute in the action's language. Python values may be pending. */
  private value(node: { attrPos: Record<string, Position>; pos: Position; languageOverride: Language | null }, attr: string, text: string): ValueFn {
    const pos = this.at(node, attr);
    if (this.language(node) === 'python') {
      this.state.usesPython = true;
      return pythonExpression(text, this.state.transform.pythonImports, pos);
    }
    return compileExpr(parseExpression(text, pos), this.state.scope);
  }

  /** `list` is where the actions sit (`''` for the top level, `2.actions` inside the third action). */
  block(actions: ActionNode[], loopDepth: number, list: string): Step[] {
    const steps: Step[] = [];
    for (const [index, action] of actions.entries()) {
      if (action.disabled || action.kind === 'comment') continue;
      const where: ActionWhere = { action: action.kind, position: actionPosition(list, index) };
      const references = this.state.scope.classReferences ?? [];
      const before = references.length;
      try {
        const step = this.action(action, loopDepth, where);
        if (step) steps.push(step);
      } catch (error) {
        this.report(error, where);
      }
      // Inner blocks named theirs already; the rest were met in this action's own attributes or code.
      for (const reference of references.slice(before)) reference.position ??= where.position;
    }
    return steps;
  }

  /** A step compiled elsewhere, made to name its action first. */
  private named(step: Step, where: ActionWhere): Step {
    return (ctx) => {
      ctx.at = where;
      return step(ctx);
    };
  }

  /** Every action's step starts with `ctx.at = where` (a store, no extra call), so what it traces or fails names it. */
  private action(node: ActionNode, loopDepth: number, where: ActionWhere): Step | null {
    const position = where.position;
    switch (node.kind) {
      case 'assign':
        return this.assign(node, where);
      case 'foreach':
        return this.foreach(node, loopDepth, where);
      case 'if': {
        const condition = this.value(node, 'condition', node.condition);
        const yes = sequence(this.block(node.whenTrue ?? [], loopDepth, actionList(position, 'whenTrue')));
        const no = sequence(this.block(node.whenFalse ?? [], loopDepth, actionList(position, 'whenFalse')));
        return (ctx) => {
          ctx.at = where;
          return whenReady(condition(ctx), (c) => (truthy(c) ? yes(ctx) : no(ctx)));
        };
      }
      case 'switch': {
        const cases: { condition: ValueFn; body: Step }[] = [];
        for (const [index, c] of node.cases.entries()) {
          if (c.disabled) continue;
          try {
            cases.push({
              condition: this.value(c, 'condition', c.condition),
              body: sequence(this.block(c.actions, loopDepth, actionList(position, `cases.${index}.actions`))),
            });
          } catch (error) {
            this.report(error, where);
          }
        }
        const otherwise = sequence(this.block(node.otherwise?.actions ?? [], loopDepth, actionList(position, 'otherwise')));
        const tryCase = (ctx: RunContext, i: number): void | Promise<void> => {
          const c = cases[i];
          if (!c) return otherwise(ctx);
          return whenReady(c.condition(ctx), (v) => (truthy(v) ? c.body(ctx) : tryCase(ctx, i + 1)));
        };
        return (ctx) => {
          ctx.at = where;
          return tryCase(ctx, 0);
        };
      }
      case 'break': {
        const flow = loopDepth > 0 ? FLOW_BREAK : FLOW_STOP;
        return (ctx) => {
          ctx.flow = flow;
        };
      }
      case 'group':
        return sequence(this.block(node.actions, loopDepth, actionList(position, 'actions')));
      case 'trace': {
        const value = this.value(node, 'value', node.value);
        const line = node.pos.line;
        return (ctx) => {
          ctx.at = where;
          return whenReady(value(ctx), (v) => void userTrace(ctx, v, line));
        };
      }
      case 'code':
        if (this.language(node) === 'python') {
          this.state.usesPython = true;
          return this.named(pythonBlock(node.text, this.state.transform.pythonImports, node.textPos), where);
        }
        return this.named(compileCode(node.text, node.textPos, this.state.scope), where);
      case 'sql':
        this.state.usesSql = true;
        return this.named(compileSql(parseEmbeddedSql(node.text, node.textPos, this.state.scope), node.textPos), where);
      case 'subtransform':
        return this.subtransform(node, where);
      case 'comment':
        return null;
    }
  }

  /** Parses a write reference (`target.{a}`, `target.Prop`, `total`, `target`). */
  private writeRef(text: string, pos: Position, what: string): WriteRef {
    const node = parseExpression(text, pos);
    if (node.kind === 'local') return { kind: 'local', name: node.name };
    if (node.kind === 'special') return { kind: 'ignored' };
    if (node.kind === 'path' && node.root === 'target' && node.steps.length === 0) return { kind: 'root' };
    if (node.kind === 'path' && node.root !== 'source') {
      const root = node.root;
      const steps = node.steps;
      const local = node.subscripted ? (ctx: RunContext) => (ctx.locals[root] ??= {}) : (ctx: RunContext) => ctx.locals[root];
      const container = root === 'target' ? (ctx: RunContext) => ctx.target : root === 'aux' ? (ctx: RunContext) => ctx.aux : local;
      const last = steps[steps.length - 1];
      return { kind: 'path', container, steps: compileSteps(steps, this.state.scope), lastIsAll: last?.kind === 'index' && last.index.k === 'all', text };
    }
    throw new DtlSyntaxError(`${what} must be a target path (target.{…} or target.Prop) or a variable name, found "${text}"`, pos);
  }

  /** The value of a direct copy keeps its JSON type and tells "absent" apart from "empty". */
  private directRead(node: ExprNode): ValueFn | null {
    return node.kind === 'path' && node.steps.length > 0 ? compileRawRead(node, this.state.scope) : null;
  }

  private assign(node: AssignNode, where: ActionWhere): Step {
    const target = this.writeRef(node.property, this.at(node, 'property'), 'property');
    const action = node.action as WriteAction;
    const keyFn: ValueFn | null = node.key.trim() === '' ? null : this.value(node, 'key', node.key);
    const needsValue = action !== 'remove' && action !== 'clear';
    let value: ValueFn = () => '';
    if (needsValue) {
      if (this.language(node) === 'python') value = this.value(node, 'value', node.value);
      else {
        const expr = parseExpression(node.value, this.at(node, 'value'));
        const raw = this.directRead(expr);
        value = raw ?? compileExpr(expr, this.state.scope);
      }
    }
    if (target.kind === 'ignored') return () => undefined;
    if (target.kind === 'local' && action !== 'set') {
      throw new DtlSyntaxError(`action "${action}" needs a collection property, not the variable "${target.name}"`, node.pos);
    }
    const pos = node.pos;
    const valueText = node.value.trim();
    const write = (ctx: RunContext, v: unknown, key: string): void => {
      if (v === MISSING) {
        if (!ctx.params.IGNOREMISSINGSOURCE) {
          actionError(ctx, pos, `property not found: ${valueText}`);
          return;
        }
        if (!ctx.params.GENERATEEMPTYSEGMENTS) return;
        v = '';
      }
      try {
        store(ctx, target, action, key, v);
      } catch (error) {
        if (!(error instanceof PathError)) throw error;
        actionError(ctx, pos, `cannot ${action} ${node.property}: ${error.message}`);
      }
    };
    const withKey = (ctx: RunContext, key: unknown): void | Promise<void> => {
      const v = needsValue ? value(ctx) : '';
      if (v instanceof Promise) return v.then((ready) => write(ctx, ready, toStr(key)));
      write(ctx, v, toStr(key));
    };
    // Only a Python key or value is pending; the ObjectScript path allocates no closure per run.
    return (ctx) => {
      ctx.at = where;
      const key = keyFn ? keyFn(ctx) : '';
      return key instanceof Promise ? key.then((k) => withKey(ctx, k)) : withKey(ctx, key);
    };
  }

  private foreach(node: ForeachNode, loopDepth: number, where: ActionWhere): Step {
    const expr = parseExpression(node.property, this.at(node, 'property'));
    if (expr.kind !== 'path' || expr.steps.length === 0) {
      throw new DtlSyntaxError(`foreach property must be a collection path such as source.{items()}, found "${node.property}"`, this.at(node, 'property'));
    }
    const steps = [...expr.steps];
    const last = steps[steps.length - 1]!;
    if (last.kind === 'index' && last.index.k === 'all') steps.pop();
    const read = compileRawRead({ ...expr, steps }, this.state.scope);
    const body = sequence(this.block(node.actions, loopDepth + 1, actionList(where.position, 'actions')));
    const keyName = node.key.trim();
    if (!/^[%A-Za-z][%A-Za-z0-9]*$/.test(keyName)) throw new DtlSyntaxError(`foreach key must be a variable name, found "${node.key}"`, this.at(node, 'key'));
    const collection = (ctx: RunContext): unknown => {
      const c = read(ctx);
      if (c instanceof Fanout) return c.items;
      if (ctx.params.TREATEMPTYREPEATINGFIELDASNULL && (c === '' || (Array.isArray(c) && c.length === 0))) return MISSING;
      return c;
    };
    const loop = (ctx: RunContext): void | Promise<void> => {
      for (;;) {
        ctx.at = where; // the body named its own actions; reading the collection is the foreach's
        const next = nextKey(collection(ctx), ctx.locals[keyName]);
        ctx.locals[keyName] = next;
        if (next === '') return;
        const pending = body(ctx);
        if (pending !== undefined) return pending.then(() => (afterBody(ctx) ? loop(ctx) : undefined));
        if (!afterBody(ctx)) return;
      }
    };
    return (ctx) => {
      ctx.locals[keyName] = '';
      return loop(ctx);
    };
  }

  private subtransform(node: SubtransformNode, where: ActionWhere): Step {
    this.state.dependencies.add(node.className);
    this.state.subtransforms.push({ className: node.className, pos: node.attrPos.class ?? node.pos, where });
    const sourceExpr = parseExpression(node.sourceObj, this.at(node, 'sourceObj'));
    const source = this.directRead(sourceExpr) ?? compileExpr(sourceExpr, this.state.scope);
    const target = this.writeRef(node.targetObj, this.at(node, 'targetObj'), 'targetObj');
    const aux: ValueFn = node.aux.trim() === '' ? () => '' : this.value(node, 'aux', node.aux);
    const pos = node.pos;
    const className = node.className;
    return (ctx) => {
      ctx.at = where;
      const callee = ctx.host.subtransform?.(className);
      if (!callee) throw new ObjectScriptError('CLASS DOES NOT EXIST', `subtransform ${className} is not available`, pos);
      const src = source(ctx);
      if (src === MISSING) {
        if (!ctx.params.IGNOREMISSINGSOURCE) actionError(ctx, pos, `property not found: ${node.sourceObj}`);
        return;
      }
      return whenReady(aux(ctx), async (auxValue) => {
        const existing = callee.create === 'existing' ? readRef(ctx, target) : undefined;
        const result = await callee.run(toJson(src), {
          host: ctx.host,
          aux: toJson(auxValue),
          target: existing === undefined || existing === MISSING ? undefined : toJson(existing),
        });
        for (const e of result.errors) actionError(ctx, pos, `subtransform ${className}: ${e.document}:${e.line}:${e.column}: ${e.message}`);
        try {
          store(ctx, target, 'set', '', result.target);
        } catch (error) {
          if (!(error instanceof PathError)) throw error;
          actionError(ctx, pos, `cannot store the result of ${className} in ${node.targetObj}: ${error.message}`);
        }
      });
    };
  }
}

/** After a loop body: true to go on, false when a break or a stop ends the loop. */
function afterBody(ctx: RunContext): boolean {
  if (ctx.flow === FLOW_NORMAL) return true;
  if (ctx.flow === FLOW_BREAK) ctx.flow = FLOW_NORMAL;
  return false;
}

function readRef(ctx: RunContext, ref: WriteRef): unknown {
  if (ref.kind === 'local') return ctx.locals[ref.name] ?? MISSING;
  if (ref.kind === 'root') return ctx.target;
  if (ref.kind === 'path') return readPath(ref.container(ctx), ref.steps(ctx));
  return MISSING;
}

/** Writes a value (a clone for structures) through a reference. */
function store(ctx: RunContext, ref: WriteRef, action: WriteAction, key: string, v: unknown): void {
  switch (ref.kind) {
    case 'local':
      ctx.locals[ref.name] =
        typeof v === 'object' && v !== null && (Array.isArray(v) || v instanceof Fanout || Object.getPrototypeOf(v) === Object.prototype)
          ? cloneJson(toJson(v))
          : v;
      return;
    case 'root':
      if (action !== 'set') throw new PathError(`action "${action}" on the whole target is not supported`);
      ctx.target = toJson(v);
      return;
    case 'ignored':
      return;
    case 'path': {
      const container = ref.container(ctx);
      if (container === undefined) throw new PathError(`the variable holding ${ref.text} is undefined`);
      const steps = ref.steps(ctx);
      if (ref.lastIsAll && action === 'set' && key === '') return storeRepeating(ctx, container, steps.slice(0, -1), v);
      writePath(container, steps, action, key, toJson(v));
      return;
    }
  }
}

/**
 * `target.{x()}` ← value: element-wise copy from a `()` source, or the same value into every
 * existing element. An empty source writes [] (TREATEMPTYREPEATINGFIELDASNULL=0) or nothing (1).
 */
export function storeRepeating(ctx: RunContext, container: unknown, listSteps: ResolvedStep[], v: unknown): void {
  if (v instanceof Fanout) {
    if (v.items.length === 0) {
      if (ctx.params.TREATEMPTYREPEATINGFIELDASNULL) return;
      if (readPath(container, listSteps) === MISSING) writePath(container, listSteps, 'set', '', []);
      return;
    }
    v.items.forEach((item, i) => writePath(container, [...listSteps, { t: 'pos', n: i + 1 }], 'set', '', toJson(item)));
    return;
  }
  const list = readPath(container, listSteps);
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) list[i] = toJson(v);
}

export function compileActions(state: CompileState): Step {
  return sequence(new ActionCompiler(state).block(state.transform.actions, 0, ''));
}
