/**
 * Compiles a rule definition once: every `when` condition and `trace` value goes through the DTL
 * expression compiler (src/dtl/expression.ts, one expression language for transforms and rules),
 * so a bad condition is a positioned diagnostic at save time, not a surprise at run time. The
 * result decides for a message: the rule set in effect, then the rules in order (disabled ones and
 * those whose constraints the message does not meet are skipped), the first true `when` of a rule
 * or else its `otherwise`, all actions collected until a `return`.
 */
import { ConveyorError } from '../core/errors.ts';
import type { DecidedAction, RoutingRule, RuleDecision, RuleInput, RuleStep } from '../core/routing-rule.ts';
import { DtlSyntaxError, type DtlDiagnostic } from '../dtl/diagnostics.ts';
import { compileExpression, type CompiledExpression, type ExpressionContext, type JsonValue } from '../dtl/index.ts';
import { documentProperty, writeDocumentProperty } from './document-property.ts';
import { inEffect, localStamp } from './effective-dates.ts';
import type { RuleAction, RuleConstraint, RuleDefinition, RuleNode, RuleSetNode } from './model.ts';
import { readRuleDefinition } from './parse-rule.ts';

export interface CompiledRuleDefinition extends RoutingRule {
  readonly definition: RuleDefinition;
}

interface Compiled {
  conditions: Map<object, CompiledExpression>;
  diagnostics: DtlDiagnostic[];
}

function diagnosticsOf(error: unknown): DtlDiagnostic[] | null {
  if (!(error instanceof ConveyorError)) return null;
  const details = error.details as { diagnostics?: DtlDiagnostic[] } | undefined;
  return details?.diagnostics ?? null;
}

function compileAll(definition: RuleDefinition, document: string): Compiled {
  const out: Compiled = { conditions: new Map(), diagnostics: [] };
  const add = (key: object, text: string, position: { line: number; column: number }): void => {
    try {
      out.conditions.set(key, compileExpression(text, { document, position }));
    } catch (error) {
      const found = diagnosticsOf(error);
      if (!found) throw error;
      out.diagnostics.push(...found);
    }
  };
  const actions = (list: RuleAction[]): void => {
    for (const action of list) {
      if (action.type === 'trace') add(action, action.value, action.valuePos);
      if (action.type !== 'assign') continue;
      add(action, action.value, action.valuePos);
      const target = documentProperty(action.property);
      if ('problem' in target) out.diagnostics.push({ document, ...action.propertyPos, severity: 'error', message: target.problem });
    }
  };
  for (const ruleSet of definition.ruleSets) {
    for (const item of ruleSet.items) {
      if (item.type !== 'rule') {
        actions([item]);
        continue;
      }
      for (const when of item.whens) {
        add(when, when.condition, when.conditionPos);
        actions(when.actions);
      }
      if (item.otherwise) actions(item.otherwise);
    }
  }
  return out;
}

export interface InspectedRuleDefinition {
  /** The model, or null when the text does not parse (the one diagnostic says where). */
  definition: RuleDefinition | null;
  diagnostics: DtlDiagnostic[];
}

/**
 * Parses and checks a rule document in one pass: the model and its positioned problems. The portal's
 * editor needs both as the text is typed (the form follows the model). Never throws for a bad document.
 */
export function inspectRuleDefinition(text: string, document = 'rule'): InspectedRuleDefinition {
  let definition: RuleDefinition;
  try {
    definition = readRuleDefinition(text);
  } catch (error) {
    if (error instanceof DtlSyntaxError) return { definition: null, diagnostics: [{ document, ...error.position, severity: 'error', message: error.message }] };
    throw error;
  }
  return { definition, diagnostics: compileAll(definition, document).diagnostics };
}

/** Parses and checks a rule document; the positioned problems (empty when it compiles). Never throws for a bad document. */
export function checkRuleDefinition(text: string, document = 'rule'): DtlDiagnostic[] {
  return inspectRuleDefinition(text, document).diagnostics;
}

function ruleLabel(rule: RuleNode, index: number): string {
  return rule.name === '' ? `rule#${index}` : `rule#${index}(${rule.name})`;
}

function constraintMet(constraint: RuleConstraint, input: RuleInput): boolean {
  const value = constraint.value.trim();
  if (value === '') return true;
  switch (constraint.name) {
    case 'source':
      return value
        .split(',')
        .map((s) => s.trim())
        .includes(input.source);
    case 'msgClass':
      return value === input.messageClass;
    default:
      // docCategory / docName / docType: virtual documents; compared with the document type given.
      return value === (input.docType ?? '');
  }
}

class RuleRun {
  readonly actions: DecidedAction[] = [];
  readonly traces: string[] = [];
  readonly steps: RuleStep[] = [];
  readonly reasons: string[] = [];
  returned = false;
  /** Set once an `<assign>` changed the message: the copy the later conditions and sends see. */
  assigned = false;
  /** The rule being evaluated: an error is its step, at its line. */
  current = { rule: 'ruleSet', line: 0 };
  readonly context: ExpressionContext;

  constructor(
    input: RuleInput,
    private readonly conditions: Map<object, CompiledExpression>,
  ) {
    this.context = { document: input.document as JsonValue, source: input.source, messageClass: input.messageClass };
  }

  run(list: RuleAction[], reason: string): void {
    for (const action of list) {
      switch (action.type) {
        case 'send':
          for (const target of action.target.split(',').map((t) => t.trim())) {
            if (target === '') continue;
            const transforms = action.transform
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== '');
            this.actions.push({ type: 'send', target, transforms, reason });
          }
          break;
        case 'delete':
          this.actions.push({ type: 'delete', reason });
          break;
        case 'trace':
          this.traces.push(String(this.conditions.get(action)!.evaluate(this.context)));
          break;
        case 'assign': {
          const value = this.conditions.get(action)!.evaluate(this.context);
          // The caller's document is never changed: the first assign works on a copy.
          if (!this.assigned) this.context.document = structuredClone(this.context.document);
          this.assigned = true;
          // compileAll refused a property that is not a path of the message, so this one is.
          writeDocumentProperty(this.context.document, (documentProperty(action.property) as { path: string[] }).path, value, action.property);
          break;
        }
        case 'return':
          this.returned = true;
          return;
      }
    }
  }

  evaluateRule(rule: RuleNode, index: number, input: RuleInput): void {
    const label = ruleLabel(rule, index);
    const line = rule.pos.line;
    this.current = { rule: label, line };
    if (rule.disabled) {
      this.steps.push({ rule: label, outcome: 'disabled', detail: 'the rule is disabled', line });
      return;
    }
    const failed = rule.constraints.find((c) => !constraintMet(c, input));
    if (failed) {
      const actual = failed.name === 'source' ? input.source : failed.name === 'msgClass' ? input.messageClass : (input.docType ?? '');
      this.steps.push({
        rule: label,
        outcome: 'constraint not met',
        detail: `${failed.name} is "${actual}", the rule wants "${failed.value}"`,
        line: failed.pos.line,
      });
      return;
    }
    for (const [i, when] of rule.whens.entries()) {
      if (!this.conditions.get(when)!.test(this.context)) continue;
      const reason = `${label}:when#${i + 1}`;
      this.steps.push({ rule: label, outcome: 'when', detail: `when#${i + 1} is true: ${when.condition}`, line: when.pos.line });
      this.reasons.push(reason);
      this.run(when.actions, reason);
      return;
    }
    if (rule.otherwise) {
      const reason = `${label}:otherwise`;
      this.steps.push({ rule: label, outcome: 'otherwise', detail: rule.whens.length === 0 ? 'no condition: otherwise' : 'no when is true', line });
      this.reasons.push(reason);
      this.run(rule.otherwise, reason);
      return;
    }
    this.steps.push({ rule: label, outcome: 'no match', detail: rule.whens.length === 0 ? 'the rule has no when and no otherwise' : 'no when is true', line });
  }

  evaluateSet(ruleSet: RuleSetNode, input: RuleInput): void {
    let index = 0;
    for (const item of ruleSet.items) {
      if (item.type === 'rule') this.evaluateRule(item, ++index, input);
      else {
        this.steps.push({ rule: 'ruleSet', outcome: 'action', detail: `<${item.type}> outside any rule`, line: item.pos.line });
        this.run([item], 'ruleSet');
      }
      if (this.returned) return;
    }
  }
}

function returnValue(actions: DecidedAction[]): string {
  return actions.map((a) => (a.type === 'delete' ? 'delete' : ['send', a.target, ...a.transforms].join(':'))).join(';');
}

/** Compiles a rule document; throws ConveyorError ERR_RULE with `details.diagnostics` when it has errors. */
export function compileRuleDefinition(text: string, options: { document?: string; version?: number } = {}): CompiledRuleDefinition {
  const document = options.document ?? 'rule';
  let definition: RuleDefinition;
  try {
    definition = readRuleDefinition(text);
  } catch (error) {
    if (!(error instanceof DtlSyntaxError)) throw error;
    const diagnostic: DtlDiagnostic = { document, ...error.position, severity: 'error', message: error.message };
    throw new ConveyorError('ERR_RULE', `${document}:${diagnostic.line}:${diagnostic.column}: ${error.message}`, { details: { diagnostics: [diagnostic] } });
  }
  const { conditions, diagnostics } = compileAll(definition, document);
  if (diagnostics.length > 0) {
    const shown = diagnostics.map((d) => `${d.document}:${d.line}:${d.column}: ${d.message}`).join('\n');
    throw new ConveyorError('ERR_RULE', `${document}: ${diagnostics.length} error(s) in the rule\n${shown}`, { details: { diagnostics } });
  }
  const name = definition.className ?? document;
  return {
    name,
    version: options.version ?? 0,
    definition,
    decide(input: RuleInput, now: Date = new Date()): RuleDecision {
      const ruleSet = definition.ruleSets.find((set) => inEffect(set.effectiveBegin, set.effectiveEnd, now)) ?? null;
      const decision: RuleDecision = {
        ruleName: name,
        ruleSet: ruleSet && { name: ruleSet.name, effectiveBegin: ruleSet.effectiveBegin, effectiveEnd: ruleSet.effectiveEnd },
        actions: [],
        reason: '',
        returnValue: '',
        traces: [],
        steps: [],
        error: null,
      };
      if (!ruleSet) {
        decision.error = `no rule set of ${name} is in effect at ${localStamp(now)}`;
        return decision;
      }
      const run = new RuleRun(input, conditions);
      try {
        run.evaluateSet(ruleSet, input);
      } catch (error) {
        decision.error = error instanceof Error ? error.message : String(error);
        run.steps.push({ rule: run.current.rule, outcome: 'error', detail: decision.error, line: run.current.line });
      }
      decision.traces = run.traces;
      decision.steps = run.steps;
      // A failed evaluation decides nothing: the routing engine performs none of the actions
      // collected before the error, so the decision lists none (the steps show how far it got).
      if (decision.error !== null) return decision;
      decision.actions = run.actions;
      if (run.assigned) decision.document = run.context.document;
      decision.reason = run.reasons.join(',');
      decision.returnValue = returnValue(run.actions);
      return decision;
    },
  };
}
