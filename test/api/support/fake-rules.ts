/**
 * The fake engine's routing rules: kept in memory per fake namespace, checked and decided by the real
 * rule compiler (src/rules), so the routes' replies have their real shapes. The rule log of the fake
 * is empty (nothing routes there); test/api/rules.e2e.test.ts covers the real engine.
 */
import { ConveyorError } from '../../../src/core/errors.ts';
import type { RuleOperations } from '../../../src/engine/rule-service.ts';
import { checkRuleDefinition, compileRuleDefinition } from '../../../src/rules/index.ts';
import type { StoredRule } from '../../../src/store/store.ts';

/** One set of rules per fake engine and namespace (the fake hands out a new namespace handle per call). */
const rulesOf = new WeakMap<object, Map<string, RuleOperations>>();

export function fakeRules(fake: object, namespace: string): RuleOperations {
  const namespaces = rulesOf.get(fake) ?? new Map<string, RuleOperations>();
  rulesOf.set(fake, namespaces);
  let rules = namespaces.get(namespace);
  if (!rules) namespaces.set(namespace, (rules = newFakeRules(namespace)));
  return rules;
}

function newFakeRules(namespace: string): RuleOperations {
  const versions = new Map<string, StoredRule[]>();
  const latest = (name: string, version?: number): StoredRule => {
    const found = versions.get(name)?.find((v, i, all) => (version === undefined ? i === all.length - 1 : v.version === version));
    if (!found) throw new ConveyorError('ERR_RULE_NOT_FOUND', `Rule ${name} does not exist in namespace ${namespace}`);
    return found;
  };
  return {
    listRules: async () =>
      [...versions.keys()].sort().map((name) => {
        const stored = latest(name);
        const definition = compileRuleDefinition(stored.source, { document: name }).definition;
        return { name, version: stored.version, updatedAt: stored.updatedAt, context: definition.context, ruleSets: definition.ruleSets.length };
      }),
    getRule: async (name, version) => latest(name, version),
    ruleHistory: async (name) => versions.get(name) ?? [],
    putRule: async (name, source) => {
      compileRuleDefinition(source, { document: name });
      const list = versions.get(name) ?? [];
      const stored = { name, source, version: list.length + 1, updatedAt: Date.now() };
      versions.set(name, [...list, stored]);
      return stored;
    },
    deleteRule: async (name) => {
      latest(name);
      versions.delete(name);
    },
    checkRule: (source, documentName) => checkRuleDefinition(source, documentName),
    testRule: async (rule, input) => {
      const compiled =
        rule.source !== undefined
          ? compileRuleDefinition(rule.source)
          : compileRuleDefinition(latest(rule.name ?? '').source, { document: rule.name ?? 'rule' });
      return compiled.decide({ document: input.json, messageClass: input.classname, source: input.source }, input.at);
    },
    ruleLog: async () => [],
  };
}
