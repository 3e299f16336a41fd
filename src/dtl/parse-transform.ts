/**
 * Stage 2: element tree → transform model. Checks the structure (known elements, required
 * attributes, allowed values); expressions and paths are checked later by the validator.
 */
import {
  defaultParameters,
  PARAMETER_NAMES,
  type ActionNode,
  type AssignAction,
  type CaseNode,
  type ClassMethodNode,
  type CreateMode,
  type Language,
  type TransformNode,
  type TransformParameters,
} from './ast.ts';
import { readCarrier } from './class-document.ts';
import { DtlSyntaxError, failWithDiagnostics, type DtlDiagnostic, type Position } from './diagnostics.ts';
import type { XmlElement } from './xml-reader.ts';

export interface ParseOptions {
  /** Parameters of a bare `<transform>` document, which has no class to carry them. */
  parameters?: Partial<TransformParameters>;
}

/**
 * Parameters of a bare XML transform: what the IRIS DTL editor writes into every class it creates.
 * A class document uses its own `Parameter` lines (absent = 0, the class default).
 */
export const BARE_XML_PARAMETERS: TransformParameters = {
  IGNOREMISSINGSOURCE: 1,
  REPORTERRORS: 1,
  TREATEMPTYREPEATINGFIELDASNULL: 0,
  GENERATEEMPTYSEGMENTS: 0,
};

const COMMON = ['disabled', 'expanded', 'languageOverride'];
const ATTRIBUTES: Record<string, string[]> = {
  transform: ['sourceClass', 'targetClass', 'sourceDocType', 'targetDocType', 'create', 'language'],
  assign: ['property', 'value', 'action', 'key', ...COMMON],
  foreach: ['property', 'key', 'unload', ...COMMON],
  if: ['condition', ...COMMON],
  true: [],
  false: [],
  switch: [...COMMON],
  case: ['condition', ...COMMON],
  default: [...COMMON],
  break: [...COMMON],
  subtransform: ['class', 'sourceObj', 'targetObj', 'aux', ...COMMON],
  code: [...COMMON],
  sql: [...COMMON],
  trace: ['value', ...COMMON],
  comment: [...COMMON],
  group: [...COMMON],
};
const ACTION_ELEMENTS = ['assign', 'foreach', 'if', 'switch', 'break', 'subtransform', 'code', 'sql', 'trace', 'comment', 'group'];
const ASSIGN_ACTIONS: AssignAction[] = ['set', 'clear', 'remove', 'append', 'insert'];

class Reader {
  readonly diagnostics: DtlDiagnostic[] = [];
  readonly warnings: { pos: Position; message: string }[] = [];
  constructor(readonly document: string) {}

  error(pos: Position, message: string): void {
    this.diagnostics.push({ document: this.document, ...pos, severity: 'error', message });
  }

  warn(pos: Position, message: string): void {
    this.warnings.push({ pos, message });
    this.diagnostics.push({ document: this.document, ...pos, severity: 'warning', message });
  }

  checkAttributes(el: XmlElement): void {
    const known = ATTRIBUTES[el.name] ?? [];
    for (const [name, attr] of el.attributes) {
      if (!known.includes(name)) this.warn(attr.namePos, `unknown attribute "${name}" on <${el.name}> is ignored`);
    }
  }

  required(el: XmlElement, name: string, allowEmpty = true): string {
    const attr = el.attributes.get(name);
    if (attr === undefined) {
      this.error(el.pos, `<${el.name}> needs the attribute "${name}"`);
      return '';
    }
    if (!allowEmpty && attr.value.trim() === '') this.error(attr.pos, `attribute "${name}" of <${el.name}> must not be empty`);
    return attr.value;
  }

  optional(el: XmlElement, name: string, fallback = ''): string {
    return el.attributes.get(name)?.value ?? fallback;
  }

  flag(el: XmlElement, name: string): boolean {
    const attr = el.attributes.get(name);
    if (!attr) return false;
    const v = attr.value.trim().toLowerCase();
    if (v === '1' || v === 'true') return true;
    if (v !== '' && v !== '0' && v !== 'false') this.error(attr.pos, `attribute "${name}" must be 1, 0, true or false, found "${attr.value}"`);
    return false;
  }

  language(el: XmlElement, name: string): Language | null {
    const attr = el.attributes.get(name);
    if (!attr || attr.value.trim() === '') return null;
    const v = attr.value.trim().toLowerCase();
    if (v === 'objectscript' || v === 'python') return v;
    this.error(attr.pos, `attribute "${name}" must be objectscript or python, found "${attr.value}"`);
    return null;
  }

  annotation(el: XmlElement): string | null {
    const a = el.children.find((c) => c.name === 'annotation');
    return a ? a.text : null;
  }

  attrPositions(el: XmlElement): Record<string, Position> {
    const out: Record<string, Position> = {};
    for (const [name, attr] of el.attributes) out[name] = attr.pos;
    return out;
  }

  actions(parent: XmlElement, allowed: string[] = []): ActionNode[] {
    const out: ActionNode[] = [];
    for (const child of parent.children) {
      if (child.name === 'annotation' || allowed.includes(child.name)) continue;
      if (!ACTION_ELEMENTS.includes(child.name)) {
        this.error(child.pos, `unknown element <${child.name}> inside <${parent.name}> (expected one of ${ACTION_ELEMENTS.join(', ')})`);
        continue;
      }
      out.push(this.action(child));
    }
    return out;
  }

  action(el: XmlElement): ActionNode {
    this.checkAttributes(el);
    const base = {
      pos: el.pos,
      disabled: this.flag(el, 'disabled'),
      annotation: this.annotation(el),
      languageOverride: this.language(el, 'languageOverride'),
      attrPos: this.attrPositions(el),
    };
    switch (el.name) {
      case 'assign': {
        const actionAttr = el.attributes.get('action');
        const action = (actionAttr?.value.trim() || 'set') as AssignAction;
        if (!ASSIGN_ACTIONS.includes(action))
          this.error(actionAttr!.pos, `unknown assign action "${actionAttr!.value}" (expected ${ASSIGN_ACTIONS.join(', ')})`);
        const valueNeeded = action !== 'remove' && action !== 'clear';
        const value = valueNeeded ? this.required(el, 'value') : this.optional(el, 'value');
        this.noChildren(el);
        return { kind: 'assign', ...base, property: this.required(el, 'property', false), value, action, key: this.optional(el, 'key') };
      }
      case 'foreach':
        return {
          kind: 'foreach',
          ...base,
          property: this.required(el, 'property', false),
          key: this.required(el, 'key', false),
          unload: this.flag(el, 'unload'),
          actions: this.actions(el),
        };
      case 'if':
        return { kind: 'if', ...base, condition: this.required(el, 'condition', false), ...this.branches(el) };
      case 'switch':
        return { kind: 'switch', ...base, ...this.cases(el) };
      case 'break':
        this.noChildren(el);
        return { kind: 'break', ...base };
      case 'subtransform':
        this.noChildren(el);
        return {
          kind: 'subtransform',
          ...base,
          className: this.required(el, 'class', false),
          sourceObj: this.required(el, 'sourceObj', false),
          targetObj: this.required(el, 'targetObj', false),
          aux: this.optional(el, 'aux'),
        };
      case 'code':
      case 'sql':
        this.noChildren(el);
        return { kind: el.name, ...base, text: el.text, textPos: el.textPos ?? el.pos };
      case 'trace':
        this.noChildren(el);
        return { kind: 'trace', ...base, value: this.required(el, 'value', false) };
      case 'comment':
        this.noChildren(el);
        return { kind: 'comment', ...base };
      default:
        return { kind: 'group', ...base, actions: this.actions(el) };
    }
  }

  noChildren(el: XmlElement): void {
    for (const child of el.children) {
      if (child.name !== 'annotation') this.error(child.pos, `<${el.name}> cannot contain <${child.name}>`);
    }
  }

  branches(el: XmlElement): { whenTrue: ActionNode[] | null; whenFalse: ActionNode[] | null } {
    let whenTrue: ActionNode[] | null = null;
    let whenFalse: ActionNode[] | null = null;
    for (const child of el.children) {
      if (child.name === 'annotation') continue;
      if (child.name !== 'true' && child.name !== 'false') {
        this.error(child.pos, `<if> may only contain <true>, <false> and <annotation>, found <${child.name}>`);
        continue;
      }
      this.checkAttributes(child);
      if ((child.name === 'true' ? whenTrue : whenFalse) !== null) this.error(child.pos, `<if> has more than one <${child.name}>`);
      if (child.name === 'true') whenTrue = this.actions(child);
      else whenFalse = this.actions(child);
    }
    return { whenTrue, whenFalse };
  }

  cases(el: XmlElement): { cases: CaseNode[]; otherwise: { pos: Position; actions: ActionNode[] } | null } {
    const cases: CaseNode[] = [];
    let otherwise: { pos: Position; actions: ActionNode[] } | null = null;
    for (const child of el.children) {
      if (child.name === 'annotation') continue;
      this.checkAttributes(child);
      if (child.name === 'case') {
        if (otherwise) this.error(child.pos, '<case> must come before <default>');
        cases.push({
          kind: 'case',
          pos: child.pos,
          disabled: this.flag(child, 'disabled'),
          annotation: this.annotation(child),
          languageOverride: this.language(child, 'languageOverride'),
          attrPos: this.attrPositions(child),
          condition: this.required(child, 'condition', false),
          actions: this.actions(child),
        });
      } else if (child.name === 'default') {
        if (otherwise) this.error(child.pos, '<switch> has more than one <default>');
        otherwise = { pos: child.pos, actions: this.actions(child) };
      } else this.error(child.pos, `<switch> may only contain <case>, <default> and <annotation>, found <${child.name}>`);
    }
    return { cases, otherwise };
  }

  transform(el: XmlElement, parameters: TransformParameters, className: string | null, dependsOn: string[], classMethods: ClassMethodNode[]): TransformNode {
    if (el.name !== 'transform') this.error(el.pos, `expected a <transform> root element, found <${el.name}>`);
    this.checkAttributes(el);
    const createAttr = el.attributes.get('create');
    const create = (createAttr?.value.trim() || 'new') as CreateMode;
    if (!['new', 'copy', 'existing'].includes(create)) this.error(createAttr!.pos, `create must be new, copy or existing, found "${createAttr!.value}"`);
    const language = this.language(el, 'language') ?? 'objectscript';
    const imports = el.children.find((c) => c.name === 'pyFromImport');
    return {
      document: this.document,
      className,
      dependsOn,
      parameters,
      sourceClass: this.required(el, 'sourceClass', false),
      targetClass: this.required(el, 'targetClass', false),
      sourceDocType: this.optional(el, 'sourceDocType'),
      targetDocType: this.optional(el, 'targetDocType'),
      create,
      language,
      pythonImports: imports ? imports.text : '',
      classMethods,
      annotation: this.annotation(el),
      actions: this.actions(el, ['pyFromImport']),
      pos: el.pos,
      attrPos: this.attrPositions(el),
      warnings: this.warnings,
    };
  }
}

/**
 * Reads a transform from any carrier (bare XML, `.cls` class text, XML export). Throws a
 * ConveyorError (ERR_DTL) whose message and `details.diagnostics` give document:line:column.
 */
export function parseTransform(text: string, documentName = 'transform', options: ParseOptions = {}): TransformNode {
  const reader = new Reader(documentName);
  let carrier;
  try {
    carrier = readCarrier(text);
  } catch (error) {
    if (!(error instanceof DtlSyntaxError)) throw error;
    reader.error(error.position, error.message);
    return failWithDiagnostics(documentName, reader.diagnostics);
  }
  const parameters = carrier.carrier === 'xml' ? { ...BARE_XML_PARAMETERS } : defaultParameters();
  for (const name of PARAMETER_NAMES) {
    const fromClass = carrier.parameters[name];
    if (fromClass) parameters[name] = fromClass.value;
    const given = options.parameters?.[name];
    if (given !== undefined) parameters[name] = given;
  }
  const node = reader.transform(carrier.transform, parameters, carrier.className, carrier.dependsOn, carrier.classMethods);
  if (reader.diagnostics.some((d) => d.severity === 'error')) failWithDiagnostics(documentName, reader.diagnostics);
  return node;
}
