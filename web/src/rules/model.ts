/**
 * The rule editor's model: the rule class read and written by src/rules (the parser, checker and
 * serializer the server uses, so the form, the text and the server agree), edits made on a copy,
 * the new nodes the form's buttons add, and each diagnostic matched to the form field it is about.
 */
import type { DtlDiagnostic, Position } from '../../../src/dtl/index.ts';
import {
  ROUTING_CONTEXT,
  ROUTING_RULE_ASSIST,
  serializeRuleClass,
  serializeRuleDefinition,
  type RuleAction,
  type RuleDefinition,
  type RuleNode,
  type RuleSetNode,
  type WhenClause,
} from '../../../src/rules/index.ts';

export type { DtlDiagnostic } from '../../../src/dtl/index.ts';
export type { RuleAction, RuleConstraint, RuleDefinition, RuleNode, RuleSetItem, RuleSetNode, WhenClause } from '../../../src/rules/index.ts';
export { CONSTRAINT_NAMES, inspectRuleDefinition } from '../../../src/rules/index.ts';

export const actionKinds = ['send', 'return', 'delete', 'assign', 'trace'] as const;
export type ActionKind = (typeof actionKinds)[number];

/** Nodes the form adds have no place in a text yet; the next re-read of the text gives them one. */
const nowhere = (): Position => ({ line: 0, column: 0 });

export function newAction(kind: ActionKind): RuleAction {
  switch (kind) {
    case 'send':
      return { type: 'send', target: '', transform: '', pos: nowhere() };
    case 'return':
      return { type: 'return', pos: nowhere() };
    case 'delete':
      return { type: 'delete', pos: nowhere() };
    case 'assign':
      return { type: 'assign', property: '', propertyPos: nowhere(), value: '""', valuePos: nowhere(), pos: nowhere() };
    case 'trace':
      return { type: 'trace', value: '""', valuePos: nowhere(), pos: nowhere() };
  }
}

/** A `when` that always holds (`1`) until its condition is written: an empty condition does not parse. */
export function newWhen(): WhenClause {
  return { condition: '1', conditionPos: nowhere(), comment: '', actions: [], pos: nowhere() };
}

export function newRule(): RuleNode {
  return { type: 'rule', name: '', disabled: false, constraints: [], whens: [newWhen()], otherwise: null, pos: nowhere() };
}

export function newRuleSet(): RuleSetNode {
  return { name: '', effectiveBegin: '', effectiveEnd: '', items: [], pos: nowhere() };
}

/** The class text of a new routing rule: one rule set, always in effect, no rules yet. */
export function newRuleClass(className: string): string {
  return serializeRuleClass({
    className,
    ruleAssistClass: ROUTING_RULE_ASSIST,
    alias: '',
    context: ROUTING_CONTEXT,
    production: '',
    ruleSets: [newRuleSet()],
    pos: nowhere(),
  });
}

/** The text of a model: the IRIS class when it came from one, else the bare `<ruleDefinition>`. */
export function writeRuleText(definition: RuleDefinition): string {
  return definition.className === null ? serializeRuleDefinition(definition) : serializeRuleClass(definition);
}

/** A copy of the model with `change` applied to it (the original is left alone: React state). */
export function edit(definition: RuleDefinition, change: (draft: RuleDefinition) => void): RuleDefinition {
  const draft = structuredClone(definition);
  change(draft);
  return draft;
}

/** Moves a list entry one place up or down (nothing at the ends). */
export function move(list: unknown[], index: number, delta: -1 | 1): void {
  const to = index + delta;
  if (to < 0 || to >= list.length) return;
  const [moved] = list.splice(index, 1);
  list.splice(to, 0, moved);
}

/**
 * The form's address of each node, in document order with the line it starts on: `s0` (rule set),
 * `s0.i1` (an item: rule or action), `s0.i1.c0` (constraint), `s0.i1.w0` (when), `s0.i1.w0.a2`,
 * `s0.i1.o.a0` (otherwise actions).
 */
function nodeLines(definition: RuleDefinition): Array<{ key: string; line: number }> {
  const out: Array<{ key: string; line: number }> = [{ key: 'definition', line: definition.pos.line }];
  const actions = (list: RuleAction[], prefix: string) => list.forEach((action, a) => out.push({ key: `${prefix}.a${a}`, line: action.pos.line }));
  definition.ruleSets.forEach((set, s) => {
    out.push({ key: `s${s}`, line: set.pos.line });
    set.items.forEach((item, i) => {
      const key = `s${s}.i${i}`;
      out.push({ key, line: item.pos.line });
      if (item.type !== 'rule') return;
      item.constraints.forEach((constraint, c) => out.push({ key: `${key}.c${c}`, line: constraint.pos.line }));
      item.whens.forEach((when, w) => {
        out.push({ key: `${key}.w${w}`, line: when.pos.line });
        actions(when.actions, `${key}.w${w}`);
      });
      if (item.otherwise) actions(item.otherwise, `${key}.o`);
    });
  });
  return out;
}

/** The form node a line of the text belongs to: the last node starting on or before it. */
function nodeAt(lines: Array<{ key: string; line: number }>, line: number): string {
  let key = 'definition';
  for (const node of lines) if (node.line > 0 && node.line <= line) key = node.key;
  return key;
}

/**
 * Which form node each diagnostic is about (a condition's error sits on its `when`, a trace value's
 * on its action). `definition` is the model the diagnostics were found in, so its positions are
 * those of the text.
 */
export function diagnosticsByNode(definition: RuleDefinition, diagnostics: DtlDiagnostic[]): Map<string, DtlDiagnostic[]> {
  const lines = nodeLines(definition);
  const found = new Map<string, DtlDiagnostic[]>();
  for (const diagnostic of diagnostics) {
    const key = nodeAt(lines, diagnostic.line);
    found.set(key, [...(found.get(key) ?? []), diagnostic]);
  }
  return found;
}

/** The form nodes at the given lines of the text (e.g. the lines of the rule log's steps that fired). */
export function nodesAtLines(definition: RuleDefinition, lines: number[]): Set<string> {
  const nodes = nodeLines(definition);
  return new Set(lines.map((line) => nodeAt(nodes, line)));
}
