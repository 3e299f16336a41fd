/**
 * Routing rule routes of a real server: a rule class stored, read with its history, listed, tested on
 * messages (which rule fires and why), compiled, deleted; bad input refused with a clear error and
 * its position, and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const RULE = `Class Demo.Rules Extends Ens.Rule.Definition
{

Parameter RuleAssistClass = "EnsLib.MsgRouter.RuleAssist";

XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]
{
<ruleDefinition alias="" context="EnsLib.MsgRouter.RoutingEngine" production="Demo.P">
<ruleSet name="main" effectiveBegin="" effectiveEnd="">
<rule name="urgent">
<constraint name="source" value="OrderIn"></constraint>
<when condition="Document.kind=&quot;urgent&quot;">
<send transform="" target="Urgent"></send>
<return></return>
</when>
</rule>
<rule name="rest">
<otherwise>
<send transform="" target="Normal"></send>
</otherwise>
</rule>
</ruleSet>
</ruleDefinition>
}

}
`;

describe('routing rule routes', () => {
  const dir = tempDir('conveyor-rules-api-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(dir.path);
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  it('stores a rule class, reads it back with its history, lists it, and says which rule fires and why', async () => {
    const put = await server.local('PUT', '/api/iop/rules/Demo.Rules', { source: RULE });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ name: 'Demo.Rules', version: 1, source: RULE });
    expect((await server.local('PUT', '/api/iop/rules/Demo.Rules', { source: RULE })).json).toMatchObject({ version: 2 });
    const got = await server.local('GET', '/api/iop/rules/Demo.Rules?version=1');
    expect(got.json).toMatchObject({ name: 'Demo.Rules', version: 1, history: [{ version: 1 }, { version: 2 }] });
    expect((await server.local('GET', '/api/iop/rules')).json).toMatchObject({
      rules: [{ name: 'Demo.Rules', version: 2, context: 'EnsLib.MsgRouter.RoutingEngine', ruleSets: 1 }],
    });

    const urgent = await server.local('POST', '/api/iop/rules/test', { name: 'Demo.Rules', classname: 'msg.Order', json: { kind: 'urgent' }, from: 'OrderIn' });
    expect(urgent.status, urgent.text).toBe(200);
    expect(urgent.json).toMatchObject({
      ruleName: 'Demo.Rules',
      ruleSet: { name: 'main' },
      reason: 'rule#1(urgent):when#1',
      returnValue: 'send:Urgent',
      actions: [{ type: 'send', target: 'Urgent', transforms: [] }],
      steps: [{ rule: 'rule#1(urgent)', outcome: 'when', detail: 'when#1 is true: Document.kind="urgent"', line: 12 }],
      error: null,
    });
    const other = await server.local('POST', '/api/iop/rules/test', {
      name: 'Demo.Rules',
      classname: 'msg.Order',
      json: { kind: 'urgent' },
      from: 'Elsewhere',
    });
    expect(other.json).toMatchObject({
      reason: 'rule#2(rest):otherwise',
      steps: [
        { rule: 'rule#1(urgent)', outcome: 'constraint not met', detail: 'source is "Elsewhere", the rule wants "OrderIn"' },
        { rule: 'rule#2(rest)', outcome: 'otherwise' },
      ],
    });
    // A document under edit is tested without being stored.
    const edited = await server.local('POST', '/api/iop/rules/test', {
      source: RULE.replace('target="Normal"', 'target="Elsewhere"'),
      classname: 'msg.X',
      json: {},
    });
    expect(edited.json).toMatchObject({ returnValue: 'send:Elsewhere' });
    const later = await server.local('POST', '/api/iop/rules/test', {
      source: RULE.replace('effectiveEnd=""', 'effectiveEnd="2020-01-01"'),
      classname: 'msg.X',
      at: '2021-05-01T10:00:00',
    });
    expect(later.json).toMatchObject({ ruleSet: null, actions: [], error: 'no rule set of Demo.Rules is in effect at 2021-05-01T10:00:00' });

    expect((await server.local('GET', '/api/iop/rules/log?rule=Demo.Rules')).json).toEqual({ entries: [] });
    expect((await server.local('DELETE', '/api/iop/rules/Demo.Rules')).json).toEqual({ deleted: 'Demo.Rules' });
    expect((await server.local('GET', '/api/iop/rules')).json).toEqual({ rules: [] });
  });

  it('compiles a document and points at a bad condition', async () => {
    const good = await server.local('POST', '/api/iop/rules/compile', { source: RULE });
    expect(good.json).toEqual({ ok: true, diagnostics: [] });
    const bad = await server.local('POST', '/api/iop/rules/compile', { source: RULE.replace('Document.kind=', 'Document.kind=..Nope(1)_') });
    expect(bad.status).toBe(200);
    expect(bad.json).toEqual({ ok: false, diagnostics: [{ line: 12, column: 32, severity: 'error', message: 'unknown function ..Nope' }] });
  });

  it('refuses bad rule documents with the position, and stores nothing', async () => {
    const malformed = await server.local('PUT', '/api/iop/rules/Demo.Bad', { source: RULE.replace('<return></return>', '<return>') });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ code: 'ERR_RULE' });
    expect((malformed.json as { error: string }).error).toMatch(/Rule Demo\.Bad has errors: 15:\d+: malformed XML/);

    const badCondition = await server.local('PUT', '/api/iop/rules/Demo.Rules', {
      source: RULE.replace('Document.kind=&quot;urgent&quot;', 'Document.kind=(1'),
    });
    expect(badCondition.status).toBe(400);
    expect((badCondition.json as { error: string }).error).toMatch(/Rule Demo\.Rules has errors: 12:\d+: /);

    const wrongName = await server.local('PUT', '/api/iop/rules/Demo.Other', { source: RULE });
    expect(wrongName.status).toBe(400);
    expect((wrongName.json as { error: string }).error).toContain('The document defines class Demo.Rules, not Demo.Other');

    const spaced = await server.local('PUT', '/api/iop/rules/Demo%20Rules', { source: RULE });
    expect(spaced.status).toBe(400);
    // A bare <ruleDefinition> names no class: its name must still be one.
    const bare = RULE.slice(RULE.indexOf('<ruleDefinition'), RULE.indexOf('</ruleDefinition>') + '</ruleDefinition>'.length);
    const dashed = await server.local('PUT', '/api/iop/rules/Demo-Rules', { source: bare });
    expect(dashed.status).toBe(400);
    expect((dashed.json as { error: string }).error).toContain('Invalid rule name: "Demo-Rules" is not a class name');

    const notARule = await server.local('PUT', '/api/iop/rules/Demo.Rules', { source: 'Class Demo.Rules Extends Ens.DataTransformDTL\n{\n}' });
    expect(notARule.status).toBe(400);
    expect((notARule.json as { error: string }).error).toContain('class Demo.Rules must extend Ens.Rule.Definition');

    expect((await server.local('GET', '/api/iop/rules')).json).toEqual({ rules: [] });
  });

  it('answers an unknown rule with 404 and a bad test request with 400', async () => {
    const missing = await server.local('GET', '/api/iop/rules/Demo.Missing');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: 'ERR_RULE_NOT_FOUND', error: expect.stringContaining('Rule Demo.Missing does not exist in namespace USER') });
    expect((await server.local('DELETE', '/api/iop/rules/Demo.Missing')).status).toBe(404);
    expect((await server.local('POST', '/api/iop/rules/test', { name: 'Demo.Missing', classname: 'msg.X' })).status).toBe(404);
    const neither = await server.local('POST', '/api/iop/rules/test', { classname: 'msg.X' });
    expect(neither.status).toBe(400);
    expect((neither.json as { error: string }).error).toContain('Give name (a stored rule class) or source (a rule class text) to test');
    const badTime = await server.local('POST', '/api/iop/rules/test', { source: RULE, classname: 'msg.X', at: 'yesterday' });
    expect(badTime.status).toBe(400);
    expect((badTime.json as { error: string }).error).toContain('at must be a date and time');
    const unknownField = await server.local('POST', '/api/iop/rules/test', { source: RULE, classname: 'msg.X', colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect((await server.local('GET', '/api/iop/rules/log?limit=0')).status).toBe(400);
  });
});
