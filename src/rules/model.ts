/**
 * The model of an IRIS rule class (`Class X Extends Ens.Rule.Definition` with an
 * `XData RuleDefinition { <ruleDefinition …> }` block): rule sets with effective dates, rules with
 * constraints, `when` conditions and actions. Every node keeps the line:column where it starts in
 * the original document, so diagnostics and the rule log point into the class text.
 */
import type { Position, TextPosition } from '../dtl/diagnostics.ts';

/** `<send target="A,B" transform="X"/>`: one send per target, each through the transform (if any). */
export interface SendAction {
  type: 'send';
  target: string;
  transform: string;
  pos: Position;
}

/** `<return/>`: stop evaluating the rule set. */
export interface ReturnAction {
  type: 'return';
  pos: Position;
}

/** `<delete/>`: the message is deleted (not routed by this action). */
export interface DeleteAction {
  type: 'delete';
  pos: Position;
}

/** `<trace value="expr"/>`: writes the value into the rule log / event log. */
export interface TraceAction {
  type: 'trace';
  value: string;
  valuePos: TextPosition;
  pos: Position;
}

/**
 * `<assign property="Document.X" value="expr"/>`: sets a property of the message being routed; the
 * conditions and sends after it see the new value (IRIS routes the same, modified, object).
 */
export interface AssignAction {
  type: 'assign';
  property: string;
  propertyPos: TextPosition;
  value: string;
  valuePos: TextPosition;
  pos: Position;
}

export type RuleAction = SendAction | ReturnAction | DeleteAction | TraceAction | AssignAction;

/** `<constraint name="source|msgClass|docCategory|docName|docType" value="…"/>`. */
export interface RuleConstraint {
  name: string;
  value: string;
  pos: Position;
}

export interface WhenClause {
  condition: string;
  conditionPos: TextPosition;
  comment: string;
  actions: RuleAction[];
  pos: Position;
}

export interface RuleNode {
  type: 'rule';
  name: string;
  disabled: boolean;
  constraints: RuleConstraint[];
  whens: WhenClause[];
  /** The actions of `<otherwise>`, or null when the rule has none. */
  otherwise: RuleAction[] | null;
  pos: Position;
}

/** What a rule set holds, in order: rules, and actions outside any rule (run when reached). */
export type RuleSetItem = RuleNode | RuleAction;

export interface RuleSetNode {
  name: string;
  /** `YYYY-MM-DDTHH:MM:SS` (time optional), or '' for "no bound". */
  effectiveBegin: string;
  effectiveEnd: string;
  items: RuleSetItem[];
  pos: Position;
}

export interface RuleDefinition {
  /** The class name, or null for a bare `<ruleDefinition>` document. */
  className: string | null;
  /** `Parameter RuleAssistClass`: EnsLib.MsgRouter.RuleAssist for routing rules. */
  ruleAssistClass: string;
  alias: string;
  /** The context class: EnsLib.MsgRouter.RoutingEngine for routing rules. */
  context: string;
  production: string;
  ruleSets: RuleSetNode[];
  pos: Position;
}

export const ROUTING_RULE_ASSIST = 'EnsLib.MsgRouter.RuleAssist';
export const ROUTING_CONTEXT = 'EnsLib.MsgRouter.RoutingEngine';
export const CONSTRAINT_NAMES = ['source', 'msgClass', 'docCategory', 'docName', 'docType'] as const;
