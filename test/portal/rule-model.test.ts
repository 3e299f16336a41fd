/** The rule editor's model (web/src/rules/model.ts) on real src/rules documents: form edits → text → model. */
import { describe, expect, it } from 'vitest';
import {
  diagnosticsByNode,
  edit,
  inspectRuleDefinition,
  move,
  newAction,
  newRule,
  newRuleClass,
  newRuleSet,
  nodesAtLines,
  writeRuleText,
  type RuleAction,
  type RuleDefinition,
  type RuleNode,
} from '../../web/src/rules/model.ts';

function read(text: string): RuleDefinition {
  const { definition, diagnostics } = inspectRuleDefinition(text, 'Demo.Route');
  expect(diagnostics).toEqual([]);
  return definition!;
}

const send = (target: string, transform = ''): RuleAction => ({ type: 'send', target, transform, pos: { line: 0, column: 0 } });
const trace = (value: string): RuleAction => ({ type: 'trace', value, valuePos: { line: 0, column: 0 }, pos: { line: 0, column: 0 } });
const ruleAt = (definition: RuleDefinition, set: number, item: number) => definition.ruleSets[set]!.items[item] as RuleNode;

describe('rule editor model', () => {
  it('starts a new class with one rule set always in effect and no rule', () => {
    const text = newRuleClass('Demo.Route');
    expect(text).toMatch(/^Class Demo\.Route Extends Ens\.Rule\.Definition\n/);
    expect(text).toContain('Parameter RuleAssistClass = "EnsLib.MsgRouter.RuleAssist";');
    const definition = read(text);
    expect(definition).toMatchObject({ className: 'Demo.Route', context: 'EnsLib.MsgRouter.RoutingEngine' });
    expect(definition.ruleSets).toMatchObject([{ name: '', effectiveBegin: '', effectiveEnd: '', items: [] }]);
  });

  it('writes what the form builds and reads it back the same (a class stays a class, bare XML stays bare)', () => {
    const built = edit(read(newRuleClass('Demo.Route')), (draft) => {
      const rule = newRule();
      rule.name = 'urgent';
      rule.constraints.push({ name: 'msgClass', value: 'msg.Order', pos: { line: 0, column: 0 } });
      rule.whens[0]!.condition = 'Document.kind="urgent"';
      rule.whens[0]!.actions.push(send('A,B', 'Demo.X'), newAction('return'));
      rule.otherwise = [newAction('trace'), newAction('delete')];
      draft.ruleSets[0]!.items.push(rule, send('Audit'));
      draft.ruleSets.push({ ...newRuleSet(), name: 'old', effectiveEnd: '2020-01-01' });
    });
    const text = writeRuleText(built);
    expect(text).toContain('<when condition="Document.kind=&quot;urgent&quot;">\n<send transform="Demo.X" target="A,B"></send>\n<return></return>\n</when>');
    const again = read(text);
    expect(ruleAt(again, 0, 0)).toMatchObject({
      name: 'urgent',
      constraints: [{ name: 'msgClass', value: 'msg.Order' }],
      whens: [{ condition: 'Document.kind="urgent"', actions: [{ type: 'send', target: 'A,B' }, { type: 'return' }] }],
      otherwise: [{ type: 'trace', value: '""' }, { type: 'delete' }],
    });
    expect(again.ruleSets[0]!.items[1]).toMatchObject({ type: 'send', target: 'Audit', transform: '' });
    expect(again.ruleSets[1]).toMatchObject({ name: 'old', effectiveEnd: '2020-01-01' });

    const bare = read('<ruleDefinition><ruleSet name="s"></ruleSet></ruleDefinition>');
    expect(writeRuleText(bare)).toMatch(/^<ruleDefinition alias="" context="" production="">/);
  });

  it('leaves the original model alone and moves entries within their list', () => {
    const original = read(newRuleClass('Demo.Route'));
    const changed = edit(original, (draft) => void draft.ruleSets[0]!.items.push(newRule(), { ...newRule(), name: 'second' }));
    expect(original.ruleSets[0]!.items).toEqual([]);
    const moved = edit(changed, (draft) => move(draft.ruleSets[0]!.items, 1, -1));
    expect(moved.ruleSets[0]!.items.map((item) => (item as RuleNode).name)).toEqual(['second', '']);
    expect(edit(moved, (draft) => move(draft.ruleSets[0]!.items, 1, 1)).ruleSets[0]!.items).toEqual(moved.ruleSets[0]!.items);
  });

  it('points each diagnostic at the form node it is about: a condition at its when, a trace value at its action', () => {
    const built = edit(read(newRuleClass('Demo.Route')), (draft) => {
      const first = newRule();
      first.whens[0]!.actions.push(send('A'));
      const second = newRule();
      second.whens.push({ ...second.whens[0]!, condition: 'Document.n>' });
      second.otherwise = [trace('..Nope(1)')];
      draft.ruleSets[0]!.items.push(first, second);
    });
    const { definition, diagnostics } = inspectRuleDefinition(writeRuleText(built), 'Demo.Route');
    expect(diagnostics).toHaveLength(2);
    const byNode = diagnosticsByNode(definition!, diagnostics);
    expect([...byNode.keys()]).toEqual(['s0.i1.w1', 's0.i1.o.a0']);
    expect(byNode.get('s0.i1.o.a0')![0]!.message).toBe('unknown function ..Nope');
    // The lines of the rule log's steps lead to the same nodes: a when, or a rule (for its otherwise).
    const second = definition!.ruleSets[0]!.items[1] as RuleNode;
    expect(nodesAtLines(definition!, [second.whens[1]!.pos.line, second.pos.line])).toEqual(new Set(['s0.i1.w1', 's0.i1']));
  });

  it('writes an assign and places the problem of an empty property on its action', () => {
    const built = edit(read(newRuleClass('Demo.Route')), (draft) => {
      const rule = newRule();
      rule.whens[0]!.actions.push({ ...newAction('assign'), property: 'Document.routed' } as RuleAction, newAction('assign'));
      draft.ruleSets[0]!.items.push(rule);
    });
    const text = writeRuleText(built);
    expect(text).toContain('<assign property="Document.routed" value="&quot;&quot;"></assign>');
    const { definition, diagnostics } = inspectRuleDefinition(text, 'Demo.Route');
    expect(ruleAt(definition!, 0, 0).whens[0]!.actions[0]).toMatchObject({ type: 'assign', property: 'Document.routed', value: '""' });
    expect([...diagnosticsByNode(definition!, diagnostics).keys()]).toEqual(['s0.i0.w0.a1']);
  });

  it('gives no model for a text that does not parse, and one positioned diagnostic', () => {
    const text = writeRuleText(edit(read(newRuleClass('Demo.Route')), (draft) => void draft.ruleSets[0]!.items.push(newAction('send'))));
    const found = inspectRuleDefinition(text, 'Demo.Route');
    expect(found.definition).toBeNull();
    expect(found.diagnostics).toMatchObject([{ line: 10, severity: 'error', message: '<send> needs a target (one item name or several, comma-separated)' }]);
  });
});
