/**
 * IRIS routing rules through the real engine, store and python3 workers: a polled Python service
 * sends orders to `EnsLib.MsgRouter.RoutingEngine`, whose BusinessRuleName names a stored rule class;
 * the rule sends urgent orders to a Python operation and, through a stored DTL transform, to an
 * audit operation (the transform reads the rule's aux), with the kind the rule's assign changed,
 * deletes the ones to drop (a condition in IRIS's operator-word syntax) and sends the rest to another operation. The rule log
 * says which rule fired for each message and why, in the session of the message.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newItem, newProduction, type ItemDefinition } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { NamespaceOperations } from '../../src/engine/namespace-operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const setting = (target: 'Host' | 'Adapter', name: string, value: string): ItemDefinition['settings'][number] => ({ target, name, value });

const components = `
import json
from dataclasses import dataclass
from iop import BusinessOperation, BusinessService, Message

@dataclass
class Order(Message):
    id: int = 0
    kind: str = ''

ORDERS = [Order(id=1, kind='urgent'), Order(id=2, kind='normal'), Order(id=3, kind='drop')]

class OrderIn(BusinessService):
    @staticmethod
    def get_adapter_type():
        return 'Ens.InboundAdapter'

    def on_init(self):
        self.sent = 0

    def on_process_input(self, message_input):
        if self.sent < len(ORDERS):
            self.send_request_sync('Router', ORDERS[self.sent])
            self.sent += 1
        return None

class UrgentWriter(BusinessOperation):
    path = ''

    def on_message(self, request):
        with open(self.path, 'a') as out:
            out.write(json.dumps({'id': request.id, 'kind': request.kind}) + '\\n')
        return None
`;

const RULE = `Class Demo.OrderRules Extends Ens.Rule.Definition
{

Parameter RuleAssistClass = "EnsLib.MsgRouter.RuleAssist";

XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]
{
<ruleDefinition alias="" context="EnsLib.MsgRouter.RoutingEngine" production="Demo.Routing">
<ruleSet name="orders" effectiveBegin="" effectiveEnd="">
<rule name="urgent">
<constraint name="source" value="OrderIn"></constraint>
<constraint name="msgClass" value="components.Order"></constraint>
<when condition="Document.kind=&quot;urgent&quot;">
<assign property="Document.kind" value="ToUpper(Document.kind)"></assign>
<send transform="" target="Urgent"></send>
<send transform="Demo.ToAudit" target="Audit"></send>
<return></return>
</when>
</rule>
<rule name="drop">
<when condition="Document.kind In &quot;drop,discard&quot;">
<delete></delete>
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

const AUDIT_TRANSFORM = `<transform sourceClass="components.Order" targetClass="components.Audit" create="new" language="objectscript">
<assign property="target.{line}" value="&quot;AUDIT &quot;_source.{id}" action="set"/>
<assign property="target.{rule}" value="aux.{BusinessRuleName}_&quot; &quot;_aux.{RuleReason}" action="set"/>
</transform>`;

describe('EnsLib.MsgRouter.RoutingEngine', () => {
  const dir = tempDir('conveyor-routing-e2e-');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;
  const urgentFile = join(dir.path, 'urgent.jsonl');
  const auditFile = join(dir.path, 'audit.jsonl');
  const normalFile = join(dir.path, 'normal.jsonl');

  beforeAll(async () => {
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db'), durability: 'normal' });
    engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000 });
    user = await engine.namespace('USER');
    const code = join(dir.path, 'code');
    mkdirSync(code);
    writeFileSync(join(code, 'components.py'), components);
    writeFileSync(
      join(code, 'settings.py'),
      "from components import OrderIn, UrgentWriter\nCLASSES = {'Demo.OrderIn': OrderIn, 'Demo.UrgentWriter': UrgentWriter}\n",
    );
    await user.migrate(join(code, 'settings.py'));
  });

  afterAll(async () => {
    if ((await user.status()).status === 'running') await user.stop();
    await engine.close();
    await store.close();
    dir.remove();
  });

  it('routes each order by the stored rule class, writes the rule log and does not start without its rule', async () => {
    const production = newProduction('Demo.Routing', [
      newItem('OrderIn', 'Demo.OrderIn', { settings: [setting('Adapter', 'CallInterval', '0.2')] }),
      newItem('Router', 'EnsLib.MsgRouter.RoutingEngine', { settings: [setting('Host', 'BusinessRuleName', 'Demo.OrderRules')] }),
      newItem('Urgent', 'Demo.UrgentWriter', { settings: [setting('Host', 'path', urgentFile)] }),
      newItem('Audit', 'Conveyor.Operation.Echo', { settings: [setting('Host', 'FilePath', auditFile)] }),
      newItem('Normal', 'Conveyor.Operation.Echo', { settings: [setting('Host', 'FilePath', normalFile)] }),
    ]);
    // No rule class yet: the routing engine says so at start.
    await user.putDefinition(newProduction('Demo.NoRule', [production.items[1]!]));
    await user.start('Demo.NoRule');
    await eventually(async () => {
      const router = (await user.items()).find((item) => item.name === 'Router');
      expect(router?.state).toBe('error');
      expect(router?.error).toContain('Rule Demo.OrderRules does not exist in namespace USER');
      return true;
    }, 'the router in error');
    await user.stop();

    await user.putDefinition(production);
    await user.dtl.putTransform('Demo.ToAudit', AUDIT_TRANSFORM);
    await user.rules.putRule('Demo.OrderRules', RULE);
    await user.start('Demo.Routing');

    await eventually(
      () => {
        expect(existsSync(urgentFile) && existsSync(auditFile) && existsSync(normalFile)).toBe(true);
        expect(readFileSync(normalFile, 'utf8').trim().split('\n')).toHaveLength(1);
        return true;
      },
      'the three orders routed',
      30_000,
    );
    await eventually(async () => (await user.rules.ruleLog({ rule: 'Demo.OrderRules', limit: 10 })).length === 3, 'three rule log entries');
    await user.stop();

    expect(
      readFileSync(urgentFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ id: 1, kind: 'URGENT' }]);
    const audit = readFileSync(auditFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { classname: string; data: string });
    expect(audit.map((a) => [a.classname, JSON.parse(a.data) as unknown])).toEqual([
      ['components.Audit', { line: 'AUDIT 1', rule: 'Demo.OrderRules rule#1(urgent):when#1' }],
    ]);
    const normal = readFileSync(normalFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { classname: string; data: string });
    expect(normal.map((n) => [n.classname, (JSON.parse(n.data) as { id: number }).id])).toEqual([['components.Order', 2]]);

    const ruleLog = (await user.rules.ruleLog({ rule: 'Demo.OrderRules', limit: 10 })).reverse();
    expect(ruleLog.map((e) => e.text)).toEqual([
      'rule Demo.OrderRules (v1) ruleSet "orders": reason rule#1(urgent):when#1; return send:Urgent;send:Audit:Demo.ToAudit',
      'rule Demo.OrderRules (v1) ruleSet "orders": reason rule#3(rest):otherwise; return send:Normal',
      'rule Demo.OrderRules (v1) ruleSet "orders": reason rule#2(drop):when#1; return delete',
    ]);
    expect(ruleLog.every((e) => e.configName === 'Router' && e.sessionId !== null && e.messageId !== null)).toBe(true);
    // The rule log sits in the message's session: the visual trace shows it beside the messages.
    const first = ruleLog[0]!;
    const session = await user.messages.trace(first.sessionId!);
    expect(session.map((m) => m.target)).toEqual(expect.arrayContaining(['Router', 'Urgent', 'Audit']));
    const deleted = await user.log.search({ sessionId: ruleLog[2]!.sessionId!, limit: 20 });
    expect(deleted.map((e) => e.text)).toContain('rule Demo.OrderRules: message deleted (rule#2(drop):when#1)');
    const dropSession = await user.messages.trace(ruleLog[2]!.sessionId!);
    expect(dropSession.map((m) => m.target).filter((t) => t !== 'Router' && t !== 'OrderIn')).toEqual([]);
  }, 90_000);
});
