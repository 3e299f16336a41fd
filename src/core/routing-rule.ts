/**
 * The seam between the routing engine (a built-in host) and the routing rules of a namespace
 * (src/rules, compiled and cached by the engine's rule service): what a rule is asked and what it
 * decides. Plain data, so the decision can be logged, returned by the API and shown by the portal.
 */

/** What a rule evaluation sees of the message. */
export interface RuleInput {
  /** The message body as JSON (`Document` in conditions). */
  document: unknown;
  /** The message class (`msgClass` constraint, `MsgClass` in conditions). */
  messageClass: string;
  /** The config name of the item that sent the message (`source` constraint, `Source`). */
  source: string;
  /** A virtual document's type (`docType` / `docName` / `docCategory` constraints); '' for other messages. */
  docType?: string;
}

/** One action the rule decided on, in order. */
export type DecidedAction = { type: 'send'; target: string; transforms: string[]; reason: string } | { type: 'delete'; reason: string };

/** How one rule of the rule set went (the test page shows these; RuleLogging=c/d logs them). */
export interface RuleStep {
  /** `rule#2(urgent)`, or `ruleSet` for an action outside any rule. */
  rule: string;
  outcome: 'disabled' | 'constraint not met' | 'when' | 'otherwise' | 'no match' | 'action' | 'error';
  /** Which constraint failed, which when fired (`when#1: Document.X="a"`), or the error. */
  detail: string;
  line: number;
}

export interface RuleDecision {
  /** The rule class evaluated. */
  ruleName: string;
  /** The rule set in effect, or null when none is. */
  ruleSet: { name: string; effectiveBegin: string; effectiveEnd: string } | null;
  actions: DecidedAction[];
  /** IRIS's reason: the rules that fired, `rule#1(urgent):when#1,rule#3:otherwise`; '' when none. */
  reason: string;
  /** IRIS's return value of a routing rule: the action list, `send:Op;send:Audit:Demo.Xform;delete`. */
  returnValue: string;
  /** The values of `<trace>` actions, in order. */
  traces: string[];
  steps: RuleStep[];
  /** Set when the evaluation failed (a condition's runtime error, no rule set in effect…). */
  error: string | null;
  /** The message as `<assign>` actions left it, when any ran: what the sends carry. */
  document?: unknown;
}

/** A compiled rule class of the namespace, ready to decide. */
export interface RoutingRule {
  readonly name: string;
  readonly version: number;
  decide(input: RuleInput, now?: Date): RuleDecision;
}
