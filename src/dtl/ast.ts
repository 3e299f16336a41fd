/**
 * The transform model: what the XML says, with positions. Expressions and paths stay as text here
 * (the editor edits text); the validator parses them. `parse(serialize(ast))` equals `ast` once
 * positions are ignored (see `withoutPositions`).
 */
import type { Position, TextPosition } from './diagnostics.ts';

export const PARAMETER_NAMES = ['IGNOREMISSINGSOURCE', 'REPORTERRORS', 'TREATEMPTYREPEATINGFIELDASNULL', 'GENERATEEMPTYSEGMENTS'] as const;
export type ParameterName = (typeof PARAMETER_NAMES)[number];
export type TransformParameters = Record<ParameterName, number>;

export type CreateMode = 'new' | 'copy' | 'existing';
export type Language = 'objectscript' | 'python';
export type AssignAction = 'set' | 'clear' | 'remove' | 'append' | 'insert';

interface ActionBase {
  pos: Position;
  disabled: boolean;
  annotation: string | null;
  /** Language for this action's expressions; null = the transform's language. */
  languageOverride: Language | null;
  /** Where each attribute value starts, for positioned errors in expressions. */
  attrPos: Record<string, TextPosition>;
}

export interface AssignNode extends ActionBase {
  kind: 'assign';
  property: string;
  value: string;
  action: AssignAction;
  key: string;
}

export interface ForeachNode extends ActionBase {
  kind: 'foreach';
  property: string;
  key: string;
  unload: boolean;
  actions: ActionNode[];
}

export interface IfNode extends ActionBase {
  kind: 'if';
  condition: string;
  /** null when the `<true>` / `<false>` element is absent. */
  whenTrue: ActionNode[] | null;
  whenFalse: ActionNode[] | null;
}

export interface CaseNode extends ActionBase {
  kind: 'case';
  condition: string;
  actions: ActionNode[];
}

export interface SwitchNode extends ActionBase {
  kind: 'switch';
  cases: CaseNode[];
  /** null when there is no `<default>`. */
  otherwise: { pos: Position; actions: ActionNode[] } | null;
}

export interface BreakNode extends ActionBase {
  kind: 'break';
}

export interface SubtransformNode extends ActionBase {
  kind: 'subtransform';
  className: string;
  sourceObj: string;
  targetObj: string;
  aux: string;
}

export interface CodeNode extends ActionBase {
  kind: 'code';
  text: string;
  /** Where the body text starts. */
  textPos: Position;
}

export interface SqlNode extends ActionBase {
  kind: 'sql';
  text: string;
  textPos: Position;
}

export interface TraceNode extends ActionBase {
  kind: 'trace';
  value: string;
}

export interface CommentNode extends ActionBase {
  kind: 'comment';
}

export interface GroupNode extends ActionBase {
  kind: 'group';
  actions: ActionNode[];
}

export type ActionNode =
  AssignNode | ForeachNode | IfNode | SwitchNode | BreakNode | SubtransformNode | CodeNode | SqlNode | TraceNode | CommentNode | GroupNode;

/** A `ClassMethod` of the transform's class, callable from expressions as `..Name(args)`. */
export interface ClassMethodNode {
  name: string;
  params: { name: string; defaultValue: string | null }[];
  /** `expression`: the body is one expression (`[ CodeMode = expression ]`). */
  codeMode: 'code' | 'expression';
  language: Language;
  body: string;
  pos: Position;
  /** Where the body text starts. */
  textPos: Position;
}

export interface TransformNode {
  /** The document the transform came from (file name or class name), used in every error. */
  document: string;
  /** The class name when the carrier was a class (`.cls` or an XML export); null for bare XML. */
  className: string | null;
  /** `DependsOn` of the class, as written. */
  dependsOn: string[];
  parameters: TransformParameters;
  sourceClass: string;
  targetClass: string;
  sourceDocType: string;
  targetDocType: string;
  create: CreateMode;
  language: Language;
  /** Python from/import statements (one per line) for Python transforms. */
  pythonImports: string;
  /** Class methods of a class document (empty for bare XML). */
  classMethods: ClassMethodNode[];
  annotation: string | null;
  actions: ActionNode[];
  pos: Position;
  attrPos: Record<string, TextPosition>;
  /** Non-fatal findings (unknown attributes ignored, …). */
  warnings: { pos: Position; message: string }[];
}

export function defaultParameters(): TransformParameters {
  return { IGNOREMISSINGSOURCE: 0, REPORTERRORS: 0, TREATEMPTYREPEATINGFIELDASNULL: 0, GENERATEEMPTYSEGMENTS: 0 };
}

/** A copy without positions and warnings: what must survive a serialize → parse round trip. */
export function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'pos' || key === 'attrPos' || key === 'textPos' || key === 'warnings' || key === 'document') continue;
    out[key] = withoutPositions(item);
  }
  return out;
}
