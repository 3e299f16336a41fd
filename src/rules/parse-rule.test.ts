import { describe, expect, it } from 'vitest';
import { DtlSyntaxError } from '../dtl/diagnostics.ts';
import { readRuleDefinition } from './parse-rule.ts';
import { serializeRuleClass, serializeRuleDefinition } from './serialize-rule.ts';

const CLASS = `/// Routes orders
Class Demo.Rules Extends Ens.Rule.Definition
{

Parameter RuleAssistClass = "EnsLib.MsgRouter.RuleAssist";

XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]
{
<ruleDefinition alias="Orders" context="EnsLib.MsgRouter.RoutingEngine" production="Demo.Production">
<ruleSet name="main" effectiveBegin="2026-01-01" effectiveEnd="">
<rule name="urgent" disabled="false">
<constraint name="source" value="In"></constraint>
<when condition="Document.kind=&quot;urgent&quot;" comment="urgent orders">
<send transform="Demo.X" target="A,B"></send>
<trace value="&quot;seen &quot;_Document.kind"></trace>
<return></return>
</when>
<otherwise>
<delete></delete>
</otherwise>
</rule>
<send transform="" target="Audit"></send>
</ruleSet>
</ruleDefinition>
}

}
`;

function failure(text: string): DtlSyntaxError {
  try {
    readRuleDefinition(text);
  } catch (error) {
    if (error instanceof DtlSyntaxError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('readRuleDefinition', () => {
  it('reads the class, its parameter and every element with positions in the class text', () => {
    const def = readRuleDefinition(CLASS);
    expect(def).toMatchObject({
      className: 'Demo.Rules',
      ruleAssistClass: 'EnsLib.MsgRouter.RuleAssist',
      alias: 'Orders',
      context: 'EnsLib.MsgRouter.RoutingEngine',
      production: 'Demo.Production',
    });
    const set = def.ruleSets[0]!;
    expect(set).toMatchObject({ name: 'main', effectiveBegin: '2026-01-01', effectiveEnd: '', pos: { line: 10, column: 1 } });
    const rule = set.items[0]!;
    expect(rule).toMatchObject({ type: 'rule', name: 'urgent', disabled: false, constraints: [{ name: 'source', value: 'In', pos: { line: 12 } }] });
    if (rule.type !== 'rule') throw new Error('a rule');
    expect(rule.whens[0]).toMatchObject({ condition: 'Document.kind="urgent"', comment: 'urgent orders', conditionPos: { line: 13, column: 18 } });
    expect(rule.whens[0]!.actions.map((a) => a.type)).toEqual(['send', 'trace', 'return']);
    expect(rule.otherwise?.map((a) => a.type)).toEqual(['delete']);
    expect(set.items[1]).toMatchObject({ type: 'send', target: 'Audit', transform: '' });
  });

  it('reads a bare <ruleDefinition>', () => {
    const def = readRuleDefinition(
      '<ruleDefinition context="EnsLib.MsgRouter.RoutingEngine"><ruleSet><rule><when condition="1"><send target="X"/></when></rule></ruleSet></ruleDefinition>',
    );
    expect(def.className).toBeNull();
    expect(def.ruleSets).toHaveLength(1);
  });

  it('round-trips through the class text and the bare XML', () => {
    const strip = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(strip)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => !/pos$/i.test(k))
                .map(([k, x]) => [k, strip(x)]),
            )
          : v;
    const def = readRuleDefinition(CLASS);
    expect(strip(readRuleDefinition(serializeRuleClass(def)))).toEqual(strip(def));
    expect(strip(readRuleDefinition(serializeRuleDefinition(def)))).toEqual(strip({ ...def, className: null, ruleAssistClass: '' }));
  });

  it('refuses what is not a rule class, with the position of the problem', () => {
    expect(failure('Class Demo.X Extends Ens.DataTransformDTL\n{\n}').message).toBe(
      'class Demo.X must extend Ens.Rule.Definition (it extends Ens.DataTransformDTL)',
    );
    expect(failure('Class Demo.X Extends Ens.Rule.Definition\n{\n}').message).toBe('the class has no "XData RuleDefinition" block');
    expect(failure('hello').message).toContain('expected a "Class <name> Extends Ens.Rule.Definition" header');
    const unknownAction = failure(CLASS.replace('<delete></delete>', '<sendto target="x"></sendto>'));
    expect([unknownAction.message, unknownAction.position]).toEqual([
      '<sendto> is not a routing action (send, return, delete, assign or trace)',
      { line: 19, column: 1 },
    ]);
    const assign = failure(CLASS.replace('<delete></delete>', '<assign property="Document.Found"></assign>'));
    expect([assign.message, assign.position]).toEqual(['<assign> needs a property and a value (an expression)', { line: 19, column: 1 }]);
    const badConstraint = failure(CLASS.replace('name="source"', 'name="sender"'));
    expect([badConstraint.message, badConstraint.position.line]).toEqual([
      'unknown constraint "sender" (expected source, msgClass, docCategory, docName, docType)',
      12,
    ]);
    expect(failure(CLASS.replace('effectiveBegin="2026-01-01"', 'effectiveBegin="01/01/2026"')).message).toBe(
      'effectiveBegin must be YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, found "01/01/2026"',
    );
    expect(failure(CLASS.replace('target="A,B"', 'target=""')).message).toBe('<send> needs a target (one item name or several, comma-separated)');
    expect(failure(CLASS.replace('<return></return>', '<return>')).message).toMatch(/^malformed XML/);
    expect(failure(CLASS.replace('<otherwise>', '<when condition="1"></when><otherwise><rule></rule>')).message).toBe(
      'nested <rule> elements are not supported: write the rules one after another in the rule set',
    );
    expect(failure(CLASS.replace('disabled="false"', 'disabled="maybe"')).message).toBe('disabled must be true or false, found "maybe"');
    expect(failure(CLASS.replace('comment="urgent orders"', 'color="red"')).message).toBe('<when> has no attribute color (allowed: condition, comment)');
  });
});
