/**
 * Validation against the doc types: every `source.{…}` / `target.{…}` path of a transform is looked
 * up in the JSON schema of the source / target doc type. A path the schema does not describe is a
 * warning (IoP documents may carry fields their schema lacks), reported at its position.
 */
import { actionList, actionPosition } from './action-position.ts';
import type { ActionNode, TransformNode } from './ast.ts';
import { DtlSyntaxError, type DtlDiagnostic, type Position } from './diagnostics.ts';
import type { ExprNode, PathStep } from './expr-ast.ts';
import { parseExpression } from './expr-parser.ts';
import { schemaToTree, type SchemaTreeNode } from './schema-tree.ts';

export interface DocTypeSchemas {
  /** JSON schema of the source doc type (object or JSON text). */
  source?: unknown;
  target?: unknown;
}

/** `items(k).sku` and `items().sku` both name the schema path `items().sku`. */
function schemaPath(steps: PathStep[]): string | null {
  let out = '';
  for (const step of steps) {
    if (step.kind === 'member') out += (out === '' ? '' : '.') + step.name;
    else if (step.index.k === 'count') return null;
    else if (step.index.k !== 'key') out += '()';
    else return null;
  }
  return out;
}

function knownPaths(tree: SchemaTreeNode[], into = new Set<string>()): Set<string> {
  for (const node of tree) {
    into.add(node.path);
    // A repeating field is also addressed without `()` (the list itself).
    if (node.repeating) into.add(node.path.slice(0, -2));
    knownPaths(node.children, into);
  }
  return into;
}

function visit(node: ExprNode, found: (root: string, steps: PathStep[], pos: Position) => void): void {
  switch (node.kind) {
    case 'path':
      found(node.root, node.steps, node.pos);
      for (const s of node.steps) if (s.kind === 'index' && s.index.k === 'expr') visit(s.index.expr, found);
      return;
    case 'method':
      visit(node.target, found);
      node.args.forEach((a) => a && visit(a, found));
      return;
    case 'unary':
      return visit(node.operand, found);
    case 'binary':
      visit(node.left, found);
      return visit(node.right, found);
    case 'pattern':
      visit(node.subject, found);
      if (!Array.isArray(node.pattern)) visit(node.pattern, found);
      return;
    case 'function':
    case 'system':
    case 'classMethod':
      node.args.forEach((a) => a && visit(a, found));
      return;
    case 'case':
      visit(node.subject, found);
      node.pairs.forEach((p) => (visit(p.when, found), visit(p.then, found)));
      if (node.otherwise) visit(node.otherwise, found);
      return;
    case 'select':
      node.pairs.forEach((p) => (visit(p.when, found), visit(p.then, found)));
      return;
    default:
      return;
  }
}

/** Expression attributes of an action that may hold document paths (ObjectScript actions only). */
function expressions(action: ActionNode): [string, string][] {
  switch (action.kind) {
    case 'assign':
      return [
        ['property', action.property],
        ['value', action.value],
        ['key', action.key],
      ];
    case 'foreach':
      return [['property', action.property]];
    case 'if':
      return [['condition', action.condition]];
    case 'trace':
      return [['value', action.value]];
    case 'subtransform':
      return [
        ['sourceObj', action.sourceObj],
        ['targetObj', action.targetObj],
        ['aux', action.aux],
      ];
    default:
      return [];
  }
}

/** The action lists inside a container, each with its position prefix (src/dtl/action-position.ts). */
function children(action: ActionNode, position: string): [ActionNode[], string][] {
  switch (action.kind) {
    case 'foreach':
    case 'group':
      return [[action.actions, actionList(position, 'actions')]];
    case 'if':
      return [
        [action.whenTrue ?? [], actionList(position, 'whenTrue')],
        [action.whenFalse ?? [], actionList(position, 'whenFalse')],
      ];
    case 'switch':
      return [
        ...action.cases.map((c, index): [ActionNode[], string] => [c.actions, actionList(position, `cases.${index}.actions`)]),
        [action.otherwise?.actions ?? [], actionList(position, 'otherwise')],
      ];
    default:
      return [];
  }
}

/** Warnings for every document path the doc-type schemas do not describe. */
export function checkPathsAgainstSchemas(ast: TransformNode, schemas: DocTypeSchemas): DtlDiagnostic[] {
  const known = {
    source: schemas.source === undefined ? null : knownPaths(schemaToTree(schemas.source)),
    target: schemas.target === undefined ? null : knownPaths(schemaToTree(schemas.target)),
  };
  const docType = { source: ast.sourceDocType || ast.sourceClass, target: ast.targetDocType || ast.targetClass };
  const out: DtlDiagnostic[] = [];
  const walk = (actions: ActionNode[], list: string): void => {
    for (const [index, action] of actions.entries()) {
      const position = actionPosition(list, index);
      const python = (action.languageOverride ?? ast.language) === 'python';
      for (const [attr, text] of python ? [] : expressions(action)) {
        if (text.trim() === '') continue;
        let expr: ExprNode;
        try {
          expr = parseExpression(text, action.attrPos[attr] ?? action.pos);
        } catch (error) {
          if (error instanceof DtlSyntaxError) continue; // reported by the compiler
          throw error;
        }
        visit(expr, (root, steps, pos) => {
          if ((root !== 'source' && root !== 'target') || steps.length === 0) return;
          const paths = known[root];
          const path = schemaPath(steps);
          if (!paths || path === null || paths.has(path)) return;
          out.push({
            document: ast.document,
            ...pos,
            severity: 'warning',
            message: `${root} path "${path}" is not in the schema of ${docType[root]}`,
            position,
          });
        });
      }
      for (const [inner, innerList] of children(action, position)) walk(inner, innerList);
    }
  };
  walk(ast.actions, '');
  return out;
}
