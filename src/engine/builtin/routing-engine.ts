/**
 * `EnsLib.MsgRouter.RoutingEngine`: IRIS's routing process. Each request is handed to the rule
 * class named by the Host setting `BusinessRuleName` (a stored routing rule of the namespace, see
 * docs/rules.md); the rule decides, the engine writes the rule log (which rule fired and why) and
 * performs the actions in order: each `send` goes to its target, through its transforms first, with
 * what the rule's `assign` actions set; `delete` is logged, nothing is sent for it.
 *
 * Settings (IRIS names): `BusinessRuleName` (required); `RuleLogging` — flags `e` errors, `r`
 * reasons, `d`/`c` each rule's outcome, `a` all (default `r`: the reason of every decision is
 * logged); `ForceSyncSend` — 1 waits for each target's reply in turn (default 0: sends are queued
 * and the engine goes on).
 */
import type { CallContext, Reply } from '../../core/component.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import type { RoutingRule, RuleDecision } from '../../core/routing-rule.ts';
import { BuiltinComponent } from './builtin-component.ts';

const RULE_LOG = { sourceClass: 'Ens.Rule.Log', sourceMethod: 'RuleLog' };

function documentOf(body: MessageBody): unknown {
  if (body.encoding === 'empty' || body.data === '') return {};
  // A pickled body can still be routed by source and class; its content reads as "".
  if (body.encoding === 'pickle') return '';
  try {
    return JSON.parse(body.data) as unknown;
  } catch {
    return body.data;
  }
}

/**
 * The `aux` a transform on a send reads (dtl-reference §1.1): the rule class and the reason of the
 * rule that decided the send, at most 2000 characters as in IRIS. Conveyor's rules carry no user
 * data, so those two fields are empty rather than absent (a transform may read them unguarded).
 */
function ruleAux(ruleName: string, reason: string): Record<string, string> {
  return { BusinessRuleName: ruleName, RuleReason: reason.slice(0, 2000), RuleUserData: '', RuleActionUserData: '' };
}

/** The request carrying `document` as its JSON (an empty body becomes one of its class's encoding). */
function withDocument(request: MessageBody, document: unknown): MessageBody {
  const native = request.classname.startsWith('Ens.') || request.classname.startsWith('EnsLib.');
  const encoding = request.encoding === 'empty' ? (native ? 'native' : 'json') : request.encoding;
  return { ...request, encoding, data: JSON.stringify(document) };
}

export class RoutingEngine extends BuiltinComponent {
  private ruleName = '';
  private logging = 'r';
  private forceSync = false;

  protected override async onInit(): Promise<void> {
    this.ruleName = this.requiredSetting('BusinessRuleName');
    this.logging = this.setting('RuleLogging', 'r').toLowerCase();
    if (!/^[erdca]*$/.test(this.logging)) {
      throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName}: RuleLogging takes the flags e, r, d, c, a (found "${this.logging}")`);
    }
    this.forceSync = ['1', 'true'].includes(this.setting('ForceSyncSend', '0').toLowerCase());
    if (!this.context.routingRule) throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName}: this host offers no routing rules`);
    // A missing or broken rule class is the item's error at start, said once, not one per message.
    await this.rule();
  }

  private rule(): Promise<RoutingRule> {
    return this.context.routingRule!(this.ruleName);
  }

  private logs(flag: string): boolean {
    return this.logging.includes('a') || this.logging.includes(flag);
  }

  private writeRuleLog(rule: RoutingRule, decision: RuleDecision, call: CallContext): void {
    const set = decision.ruleSet ? `ruleSet "${decision.ruleSet.name}"` : 'no ruleSet';
    if (decision.error !== null) {
      if (this.logs('e') || this.logs('r')) this.context.log('Error', `rule ${rule.name} (v${rule.version}) ${set}: error ${decision.error}`, RULE_LOG, call);
      return;
    }
    if (this.logs('r')) {
      const text = `rule ${rule.name} (v${rule.version}) ${set}: reason ${decision.reason || '(no rule fired)'}; return ${decision.returnValue || '(nothing)'}`;
      this.context.log('Info', text, RULE_LOG, call);
    }
    if (this.logs('d') || this.logs('c')) {
      for (const step of decision.steps) this.context.log('Trace', `rule ${rule.name} ${step.rule}: ${step.outcome}: ${step.detail}`, RULE_LOG, call);
    }
  }

  override async onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    const rule = await this.rule();
    const decision = rule.decide({ document: documentOf(request), messageClass: request.classname, source: call.source ?? '' });
    this.writeRuleLog(rule, decision, call);
    for (const value of decision.traces) this.context.log('Trace', value, RULE_LOG, call);
    if (decision.error !== null) throw new ConveyorError('ERR_RULE', `Rule ${rule.name}: ${decision.error}`);
    // What the rule's <assign> actions changed travels with every send, as IRIS sends the changed object.
    const routed = decision.document === undefined ? request : withDocument(request, decision.document);
    for (const action of decision.actions) {
      if (action.type === 'delete') {
        this.context.log('Info', `rule ${rule.name}: message deleted (${action.reason})`, RULE_LOG, call);
        continue;
      }
      let body = routed;
      for (const transform of action.transforms) {
        if (!this.context.transform) throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName}: this host offers no DTL`);
        body = await this.context.transform(transform, body, { aux: ruleAux(rule.name, action.reason) });
      }
      if (this.forceSync) await call.sendSync(action.target, body, { description: call.description });
      else await call.sendAsync(action.target, body, { description: call.description, responseRequired: false });
    }
    return null;
  }
}
