import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { checkRuleDefinition, compileRuleDefinition, inspectRuleDefinition } from './compile-rule.ts';

const rule = (body: string) => `Class Demo.Rules Extends Ens.Rule.Definition
{
XData RuleDefinition
{
<ruleDefinition context="EnsLib.MsgRouter.RoutingEngine">
<ruleSet name="s">
${body}
</ruleSet>
</ruleDefinition>
}
}`;

const order = { document: { kind: 'urgent', n: 3 }, messageClass: 'msg.Order', source: 'In' };

describe('compileRuleDefinition', () => {
  it('reports a bad condition at its line and column in the class text', () => {
    const text = rule('<rule><when condition="Document.kind=..NoSuch(1)"><send target="X"/></when></rule>');
    expect(checkRuleDefinition(text, 'Demo.Rules')).toEqual([
      { document: 'Demo.Rules', line: 7, column: 38, severity: 'error', message: 'unknown function ..NoSuch' },
    ]);
    let failure: unknown;
    try {
      compileRuleDefinition(text, { document: 'Demo.Rules' });
    } catch (error) {
      failure = error;
    }
    expect(isConveyorError(failure, 'ERR_RULE')).toBe(true);
    expect((failure as Error).message).toContain('Demo.Rules:7:38: unknown function ..NoSuch');
  });

  it('sets properties of the message with <assign>: later conditions and the decision see them, the input is left alone', () => {
    const text = rule(
      [
        '<rule><when condition="1"><assign property="Document.{route.to}" value="ToUpper(Document.kind)"/><assign property="Document.n" value="Document.n+1"/></when></rule>',
        '<rule><when condition="Document.n=4"><send target="Four"/></when></rule>',
      ].join('\n'),
    );
    const decision = compileRuleDefinition(text).decide(order);
    expect([decision.returnValue, decision.document]).toEqual(['send:Four', { kind: 'urgent', n: 4, route: { to: 'URGENT' } }]);
    expect(order.document).toEqual({ kind: 'urgent', n: 3 });
    expect(compileRuleDefinition(rule('<rule><when condition="1"><send target="X"/></when></rule>')).decide(order).document).toBeUndefined();
    const intoAString = compileRuleDefinition(text).decide({ ...order, document: 'plain text' });
    expect([intoAString.error, intoAString.actions]).toEqual(['cannot set Document.{route.to}: the message is not an object', []]);
  });

  it('refuses an <assign> to anything but a property of the message, at the property', () => {
    expect(checkRuleDefinition(rule('<rule><when condition="1"><assign property="context.X" value="1"/></when></rule>'), 'R')).toEqual([
      {
        document: 'R',
        line: 7,
        column: 45,
        severity: 'error',
        message: '<assign> sets a property of the message: write Document.Name or Document.{a.b}, not "context.X"',
      },
    ]);
    expect(checkRuleDefinition(rule('<rule><when condition="1"><assign property="Document.a_b" value="1"/></when></rule>'), 'R')).toMatchObject([
      { message: '"a_b" in Document.a_b is not a property name (use Document.{…} for other names)' },
    ]);
  });

  it('reports a syntax error inside a condition with entities at the position in the source', () => {
    const text = rule('<rule><when condition="Document.kind=&quot;a&quot;+"><send target="X"/></when></rule>');
    const [problem] = checkRuleDefinition(text, 'R');
    expect(problem).toMatchObject({ line: 7, severity: 'error' });
    expect(problem!.column).toBeGreaterThan(40);
  });

  it('turns a runtime error of a condition into the decision error, with the steps so far', () => {
    const decision = compileRuleDefinition(
      rule('<rule name="ok"><when condition="0"><send target="A"/></when></rule><rule><when condition="Missing=1"><send target="B"/></when></rule>'),
    ).decide(order);
    expect(decision.error).toBe('rule:7:92: <UNDEFINED> Missing');
    expect(decision.actions).toEqual([]);
    expect(decision.steps.map((s) => s.outcome)).toEqual(['no match', 'error']);
  });

  it('logs each rule: disabled, constraint not met (with the values), when, otherwise, no match', () => {
    const decision = compileRuleDefinition(
      rule(`<rule name="off" disabled="true"><when condition="1"><send target="A"/></when></rule>
<rule><constraint name="msgClass" value="msg.Invoice"/><when condition="1"><send target="B"/></when></rule>
<rule><when condition="Document.n&gt;5"><send target="C"/></when></rule>
<rule><when condition="Document.n&gt;5"><send target="D"/></when><otherwise><trace value="&quot;n=&quot;_Document.n"/><send target="E"/></otherwise></rule>`),
    ).decide(order);
    expect(decision.steps.map((s) => [s.rule, s.outcome, s.detail])).toEqual([
      ['rule#1(off)', 'disabled', 'the rule is disabled'],
      ['rule#2', 'constraint not met', 'msgClass is "msg.Order", the rule wants "msg.Invoice"'],
      ['rule#3', 'no match', 'no when is true'],
      ['rule#4', 'otherwise', 'no when is true'],
    ]);
    expect(decision.traces).toEqual(['n=3']);
    expect(decision.returnValue).toBe('send:E');
  });

  it('inspects a document: the model with its problems, or no model and the parse error', () => {
    const bad = inspectRuleDefinition(rule('<rule><when condition="1+"><send target="X"/></when></rule>'), 'R');
    expect(bad.definition?.ruleSets[0]?.items).toMatchObject([{ type: 'rule', whens: [{ condition: '1+' }] }]);
    expect(bad.diagnostics).toMatchObject([{ document: 'R', line: 7, severity: 'error' }]);
    expect(inspectRuleDefinition(rule('<rule><when condition="1"><send/></when></rule>'), 'R')).toEqual({
      definition: null,
      diagnostics: [{ document: 'R', line: 7, column: 27, severity: 'error', message: '<send> needs a target (one item name or several, comma-separated)' }],
    });
  });
});
