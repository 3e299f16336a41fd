/**
 * One DTL expression on its own, outside a transform: the entry point routing rules use for their
 * conditions (and anything else that evaluates the DTL expression language against a message).
 * The expression is parsed and compiled once, by the same parser and compiler as a transform's
 * attributes, and evaluated against a context: the message body (`Document`, also `source`), the
 * sending item (`Source`), the message class (`MsgClass`) and any further named values.
 *
 * Rules call the function set by its bare name (`Contains(Document.Name,"x")`), DTL with two dots
 * (`..Contains(…)`); both forms are accepted here, so a condition reads the same in either place.
 * IRIS rule conditions also write `!=`, a leading `!` (not) and operator words (`Document.Name
 * Contains "x"`), and join comparisons with `&&` / `||` without parentheses: they are read with the
 * parser's rule syntax (precedence levels; a transform's attributes stay strictly left to right).
 */
import { ConveyorError } from '../core/errors.ts';
import { compileExpr, EMPTY_SCOPE } from './compile-expr.ts';
import { newContext, ObjectScriptError } from './context.ts';
import { DtlSyntaxError, failWithDiagnostics, formatDiagnostic, type DtlDiagnostic, type Position } from './diagnostics.ts';
import type { ExprNode } from './expr-ast.ts';
import { parseExpression } from './expr-parser.ts';
import { FUNCTION_SET } from './functions.ts';
import type { TransformParameters } from './ast.ts';
import type { DtlHost } from './types.ts';
import { toJson, truthy, type JsonValue } from './values.ts';

/** What an expression is evaluated against. */
export interface ExpressionContext {
  /** The message body as JSON: `Document.{a.b}`, `Document.Prop` and `source.{…}` read it. */
  document: JsonValue;
  /** The config name of the item that sent the message: `Source`. */
  source?: string;
  /** The message's class name: `MsgClass`. */
  messageClass?: string;
  /** Further names the caller defines (e.g. `RuleUserData`, `aux`); a name used but not given is `<UNDEFINED>`. */
  variables?: Record<string, JsonValue>;
  /** Lookup tables, class methods and the clock (`..Lookup`, `##class(…)`, `$H`). */
  host?: DtlHost;
}

export interface CompileExpressionOptions {
  /** The document named in diagnostics (e.g. the rule class). Default `expression`. */
  document?: string;
  /** Where the expression text starts in that document (1-based), for positioned diagnostics. */
  position?: Position;
}

export interface CompiledExpression {
  readonly text: string;
  /** The value (JSON: decimals become numbers). Throws ConveyorError ERR_DTL for a runtime error (`<UNDEFINED> x`), positioned. */
  evaluate(context: ExpressionContext): JsonValue;
  /** The value as an ObjectScript truth value (a condition): `1`, `"1abc"`, `2` are true; `0`, `""`, `"abc"` false. */
  test(context: ExpressionContext): boolean;
}

/** Expressions run with no parameter effects (those govern actions, not expressions). */
const NO_PARAMETERS: TransformParameters = { IGNOREMISSINGSOURCE: 1, REPORTERRORS: 1, TREATEMPTYREPEATINGFIELDASNULL: 0, GENERATEEMPTYSEGMENTS: 0 };

function isPlainNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** `Name(args)` where Name is a function-set function and not a local array: the rule form of `..Name(args)`. */
function bareCallsToFunctions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(bareCallsToFunctions);
  if (!isPlainNode(node)) return node;
  if (node.kind === 'path' && node.subscripted === true && typeof node.root === 'string' && Object.hasOwn(FUNCTION_SET, node.root)) {
    const steps = node.steps as Extract<ExprNode, { kind: 'path' }>['steps'];
    const args = steps.map((step) => (step.kind === 'index' && step.index.k === 'expr' ? (bareCallsToFunctions(step.index.expr) as ExprNode) : null));
    return { kind: 'function', name: node.root, args, pos: node.pos };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = bareCallsToFunctions(value);
  return out;
}

/** The positioned problems of an expression (empty when it compiles); never throws. */
export function checkExpression(text: string, options: CompileExpressionOptions = {}): DtlDiagnostic[] {
  try {
    compileExpression(text, options);
    return [];
  } catch (error) {
    const details = error instanceof ConveyorError ? (error.details as { diagnostics?: DtlDiagnostic[] } | undefined) : undefined;
    if (details?.diagnostics) return details.diagnostics;
    throw error;
  }
}

/**
 * Parses and compiles an expression once. A syntax error, an unknown function or a wrong argument
 * count throws ConveyorError ERR_DTL whose `details.diagnostics` hold the positioned problem.
 */
export function compileExpression(text: string, options: CompileExpressionOptions = {}): CompiledExpression {
  const document = options.document ?? 'expression';
  const position = options.position ?? { line: 1, column: 1 };
  let evaluateNode;
  try {
    evaluateNode = compileExpr(bareCallsToFunctions(parseExpression(text, position, { ruleSyntax: true })) as ExprNode, EMPTY_SCOPE);
  } catch (error) {
    if (!(error instanceof DtlSyntaxError)) throw error;
    failWithDiagnostics(document, [{ document, ...error.position, severity: 'error', message: error.message }]);
  }
  const compiled = evaluateNode;
  const run = (context: ExpressionContext): unknown => {
    const ctx = newContext({
      source: context.document,
      target: {},
      aux: context.variables?.aux ?? '',
      host: context.host ?? {},
      params: NO_PARAMETERS,
      document,
    });
    ctx.locals.Document = context.document;
    if (context.source !== undefined) ctx.locals.Source = context.source;
    if (context.messageClass !== undefined) ctx.locals.MsgClass = context.messageClass;
    for (const [name, value] of Object.entries(context.variables ?? {})) ctx.locals[name] = value;
    try {
      return compiled(ctx);
    } catch (error) {
      if (!(error instanceof ObjectScriptError)) throw error;
      const at = error.pos ?? position;
      throw new ConveyorError('ERR_DTL', formatDiagnostic({ document, ...at, severity: 'error', message: error.message }));
    }
  };
  return {
    text,
    evaluate: (context) => toJson(run(context)),
    test: (context) => truthy(run(context)),
  };
}
