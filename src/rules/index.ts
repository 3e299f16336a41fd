/**
 * @module rules — IRIS routing rules (pure: no node: imports; the portal's rule editor uses it too).
 *
 * `readRuleDefinition` (class text or `<ruleDefinition>` → positioned model), `checkRuleDefinition`
 * (diagnostics, never throws), `inspectRuleDefinition` (the model when it parses, and the diagnostics),
 * `compileRuleDefinition` (conditions through the DTL expression compiler → a RoutingRule that
 * decides), `serializeRuleDefinition` / `serializeRuleClass`.
 */
export type { RuleAction, RuleConstraint, RuleDefinition, RuleNode, RuleSetItem, RuleSetNode, WhenClause } from './model.ts';
export { CONSTRAINT_NAMES, ROUTING_CONTEXT, ROUTING_RULE_ASSIST } from './model.ts';
export { readRuleDefinition } from './parse-rule.ts';
export {
  checkRuleDefinition,
  compileRuleDefinition,
  inspectRuleDefinition,
  type CompiledRuleDefinition,
  type InspectedRuleDefinition,
} from './compile-rule.ts';
export { serializeRuleClass, serializeRuleDefinition } from './serialize-rule.ts';
