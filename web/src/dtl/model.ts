/**
 * The editor's model operations on the DTL AST of src/dtl: addressing actions by path, creating
 * actions from the palette, the drag-and-drop mapping (a source field onto a target field makes an
 * `assign`, inside a `foreach` when the source repeats), the links the mapper draws, and the
 * round trip through XML that gives every action its line for positioned diagnostics.
 */
import {
  BARE_XML_PARAMETERS,
  PARAMETER_NAMES,
  parseTransform,
  serializeTransform,
  serializeTransformClass,
  validateTransform,
  type ActionNode,
  type DtlDiagnostic,
  type ForeachNode,
  type TransformNode,
  type TransformParameters,
} from '../../../src/dtl/index.ts';

/** Where an action lives: indices into nested lists, with the list's name between (`actions`, `whenTrue`, `whenFalse`). */
export type ActionPath = Array<number | 'actions' | 'whenTrue' | 'whenFalse'>;

export const paletteKinds = ['assign', 'foreach', 'if', 'subtransform', 'code', 'trace', 'comment', 'group', 'break'] as const;
export type PaletteKind = (typeof paletteKinds)[number];

const base = () => ({ pos: { line: 0, column: 0 }, disabled: false, annotation: null, languageOverride: null, attrPos: {} });

export function newAction(kind: PaletteKind): ActionNode {
  switch (kind) {
    case 'assign':
      return { ...base(), kind, property: 'target.{}', value: '""', action: 'set', key: '' };
    case 'foreach':
      return { ...base(), kind, property: 'source.{}', key: 'k1', unload: false, actions: [] };
    case 'if':
      return { ...base(), kind, condition: '1', whenTrue: [], whenFalse: [] };
    case 'subtransform':
      return { ...base(), kind, className: '', sourceObj: 'source', targetObj: 'target', aux: '' };
    case 'code':
      return { ...base(), kind, text: ' ', textPos: { line: 0, column: 0 } };
    case 'trace':
      return { ...base(), kind, value: '""' };
    case 'comment':
      return { ...base(), kind, annotation: 'comment' };
    case 'group':
      return { ...base(), kind, actions: [] };
    case 'break':
      return { ...base(), kind };
  }
}

export function newTransformXml(sourceDocType: string, targetDocType: string): string {
  const docTypes = `${sourceDocType ? ` sourceDocType='${sourceDocType}'` : ''}${targetDocType ? ` targetDocType='${targetDocType}'` : ''}`;
  return `<transform sourceClass='IOP.Message' targetClass='IOP.Message'${docTypes} create='new' language='objectscript' >\n</transform>\n`;
}

export interface Parsed {
  ast: TransformNode | null;
  diagnostics: DtlDiagnostic[];
}

/** Parses and validates an XML document; a parse failure becomes positioned diagnostics. */
export function parseXml(xml: string, name = 'transform'): Parsed {
  try {
    const ast = parseTransform(xml, name);
    return { ast, diagnostics: validateTransform(ast) };
  } catch (error) {
    const details = (error as { details?: { diagnostics?: DtlDiagnostic[] } }).details;
    if (details?.diagnostics?.length) return { ast: null, diagnostics: details.diagnostics };
    const position = (error as { position?: { line: number; column: number } }).position ?? { line: 1, column: 1 };
    return { ast: null, diagnostics: [{ document: name, ...position, severity: 'error', message: (error as Error).message }] };
  }
}

/**
 * Re-serializes a changed model and re-reads it, so positions (and diagnostics) match the text shown.
 * A class document stays one (its parameters and class methods live in the class text); a bare
 * `<transform>` stays bare XML.
 */
export function roundTrip(ast: TransformNode, name = 'transform'): { xml: string } & Parsed {
  const xml = ast.className === null ? serializeTransform(ast) : serializeTransformClass(ast, ast.className);
  return { xml, ...parseXml(xml, name) };
}

/**
 * New parameters for the transform. Parameters are `Parameter` lines of the class, so a bare
 * `<transform>` whose parameters leave what bare XML means (BARE_XML_PARAMETERS) becomes the class
 * document `name` (the transform's name is its class name).
 */
export function setParameters(ast: TransformNode, name: string, parameters: TransformParameters): TransformNode {
  return edit(ast, (draft) => {
    draft.parameters = parameters;
    const bareDefaults = PARAMETER_NAMES.every((parameter) => parameters[parameter] === BARE_XML_PARAMETERS[parameter]);
    if (draft.className === null && !bareDefaults) draft.className = name;
  });
}

/**
 * A diagnostic as the editor shows it: those of src/dtl (as you type) and those the server answers
 * from POST /transforms/compile have these fields in common.
 */
export type Problem = Pick<DtlDiagnostic, 'line' | 'column' | 'severity' | 'message' | 'position'>;

/** The action the graph can show for a position: actions inside a switch are shown by their switch. */
export function editorPosition(position: string): string {
  return position.split(/\.(?:cases|otherwise)\b/)[0]!;
}

/** The actions of the graph with their positions, in document order (a switch's inner actions are not in the graph). */
function graphActions(actions: ActionNode[], prefix: ActionPath = []): Array<{ position: string; action: ActionNode }> {
  return actions.flatMap((action, index) => {
    const path: ActionPath = [...prefix, index];
    const inner =
      action.kind === 'foreach' || action.kind === 'group'
        ? graphActions(action.actions, [...path, 'actions'])
        : action.kind === 'if'
          ? [...graphActions(action.whenTrue ?? [], [...path, 'whenTrue']), ...graphActions(action.whenFalse ?? [], [...path, 'whenFalse'])]
          : [];
    return [{ position: path.join('.'), action }, ...inner];
  });
}

/** The action of the graph at a position (`2.actions.0`), or null when there is none. */
export function actionAt(ast: TransformNode, position: string): ActionNode | null {
  return graphActions(ast.actions).find((entry) => entry.position === position)?.action ?? null;
}

/**
 * The action of the graph a diagnostic is about: the one its position names (compile and
 * validation give one), else — for what the reader found, unknown attributes — the last action
 * starting on or before its line; null for the transform itself.
 */
export function diagnosticAction(ast: TransformNode, diagnostic: Problem): string | null {
  if (diagnostic.position !== undefined && diagnostic.position !== '') {
    const position = editorPosition(diagnostic.position);
    return actionAt(ast, position) ? position : null;
  }
  const before = graphActions(ast.actions).filter((entry) => entry.action.pos.line <= diagnostic.line);
  return before.at(-1)?.position ?? null;
}

function listAt(ast: TransformNode, path: ActionPath): ActionNode[] {
  let list = ast.actions;
  for (let index = 0; index + 1 < path.length; index += 2) {
    const node = list[path[index] as number] as unknown as Record<string, ActionNode[] | null>;
    const key = path[index + 1] as string;
    node[key] ??= [];
    list = node[key] as ActionNode[];
  }
  return list;
}

/** A copy of the model with `change` applied to it (the original is left alone). */
export function edit(ast: TransformNode, change: (draft: TransformNode) => void): TransformNode {
  const draft = structuredClone(ast);
  change(draft);
  return draft;
}

export function replaceAction(ast: TransformNode, path: ActionPath, patch: Partial<ActionNode>): TransformNode {
  return edit(ast, (draft) => {
    const list = listAt(draft, path);
    const index = path[path.length - 1] as number;
    list[index] = { ...list[index]!, ...patch } as ActionNode;
  });
}

export function removeAction(ast: TransformNode, path: ActionPath): TransformNode {
  return edit(ast, (draft) => void listAt(draft, path).splice(path[path.length - 1] as number, 1));
}

export function moveAction(ast: TransformNode, path: ActionPath, delta: -1 | 1): TransformNode {
  return edit(ast, (draft) => {
    const list = listAt(draft, path);
    const from = path[path.length - 1] as number;
    const to = from + delta;
    if (to < 0 || to >= list.length) return;
    const [moved] = list.splice(from, 1);
    list.splice(to, 0, moved!);
  });
}

/** Appends an action to a list: the top level (`[]`) or a container's list (`[0, 'actions']`). */
export function appendAction(ast: TransformNode, container: ActionPath, action: ActionNode): TransformNode {
  return edit(ast, (draft) => void listAt(draft, [...container, 0]).push(action));
}

const sourceRef = /^source\.\{([^{}]*)\}$/;
const targetRef = /^target\.\{([^{}]*)\}$/;
/** `lines(k1).sku` → `lines().sku`: the schema-tree path a document path stands for. */
export const schemaPath = (path: string) => path.replace(/\([^()]*\)/g, '()');

export interface Link {
  source: string;
  target: string;
  path: ActionPath;
}

/** The source field → target field pairs of plain copies (`assign` of `source.{…}` to `target.{…}`). */
export function mappingLinks(actions: ActionNode[], prefix: ActionPath = []): Link[] {
  const links: Link[] = [];
  actions.forEach((action, index) => {
    const path: ActionPath = [...prefix, index];
    if (action.kind === 'assign') {
      const from = sourceRef.exec(action.value.trim());
      const to = targetRef.exec(action.property.trim());
      if (from && to) links.push({ source: schemaPath(from[1]!), target: schemaPath(to[1]!), path });
    } else if (action.kind === 'foreach' || action.kind === 'group') {
      links.push(...mappingLinks(action.actions, [...path, 'actions']));
    } else if (action.kind === 'if') {
      links.push(...mappingLinks(action.whenTrue ?? [], [...path, 'whenTrue']), ...mappingLinks(action.whenFalse ?? [], [...path, 'whenFalse']));
    }
  });
  return links;
}

function usedKeys(actions: ActionNode[], keys = new Set<string>()): Set<string> {
  for (const action of actions) {
    if (action.kind === 'foreach') {
      keys.add(action.key);
      usedKeys(action.actions, keys);
    } else if (action.kind === 'group') usedKeys(action.actions, keys);
    else if (action.kind === 'if') usedKeys([...(action.whenTrue ?? []), ...(action.whenFalse ?? [])], keys);
  }
  return keys;
}

/**
 * What dropping source field `from` on target field `to` (schema-tree paths) does: a plain field
 * becomes `assign source.{from} → target.{to}` (append when the target repeats); a field under a
 * repeating source gets a `foreach` over that source list (reusing one that exists) whose key indexes
 * the source, and an `assign` inside it that appends to a repeating target or indexes its list.
 */
export function mapFields(ast: TransformNode, from: string, to: string): TransformNode {
  const repeat = from.indexOf('()');
  const targetAppends = to.endsWith('()');
  if (repeat < 0) {
    const assign = { ...newAction('assign'), value: `source.{${from}}`, property: `target.{${to}}`, action: targetAppends ? 'append' : 'set' } as ActionNode;
    return appendAction(ast, [], assign);
  }
  const listPath = `source.{${from.slice(0, repeat + 2)}}`;
  return edit(ast, (draft) => {
    let loop = draft.actions.find((action): action is ForeachNode => action.kind === 'foreach' && action.property === listPath);
    if (!loop) {
      const keys = usedKeys(draft.actions);
      let n = 1;
      while (keys.has(`k${n}`)) n++;
      loop = { ...(newAction('foreach') as ForeachNode), property: listPath, key: `k${n}` };
      draft.actions.push(loop);
    }
    const key = loop.key;
    const value = `source.{${from.slice(0, repeat)}(${key})${from.slice(repeat + 2)}}`;
    const indexed = !targetAppends && to.includes('()') ? to.replace('()', `(${key})`) : to;
    loop.actions.push({ ...newAction('assign'), value, property: `target.{${indexed}}`, action: targetAppends ? 'append' : 'set' } as ActionNode);
  });
}

/** The diagnostics shown on an action: those about it (by position), else those on its own line. */
export function diagnosticsAt<P extends Problem>(diagnostics: P[], action: ActionNode, position: string): P[] {
  return diagnostics.filter((diagnostic) =>
    diagnostic.position !== undefined && diagnostic.position !== '' ? editorPosition(diagnostic.position) === position : diagnostic.line === action.pos.line,
  );
}
