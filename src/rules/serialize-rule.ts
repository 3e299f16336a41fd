/**
 * Model → text, for the portal's rule editor (the form writes the model, the text follows): the
 * `<ruleDefinition>` XML, or the whole IRIS class (`Class X Extends Ens.Rule.Definition`, the
 * RuleAssistClass parameter and the XData block) in the layout the IRIS rule editor saves.
 */
import { ROUTING_RULE_ASSIST, type RuleAction, type RuleDefinition, type RuleNode, type RuleSetNode } from './model.ts';

function escape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function attrs(pairs: [string, string][]): string {
  return pairs.map(([name, value]) => ` ${name}="${escape(value)}"`).join('');
}

function action(a: RuleAction): string {
  switch (a.type) {
    case 'send':
      return `<send${attrs([
        ['transform', a.transform],
        ['target', a.target],
      ])}></send>`;
    case 'return':
      return '<return></return>';
    case 'delete':
      return '<delete></delete>';
    case 'trace':
      return `<trace${attrs([['value', a.value]])}></trace>`;
    case 'assign':
      return `<assign${attrs([
        ['property', a.property],
        ['value', a.value],
      ])}></assign>`;
  }
}

function rule(r: RuleNode, indent: string): string[] {
  const lines = [`${indent}<rule${attrs([['name', r.name]])}${r.disabled ? ' disabled="true"' : ''}>`];
  for (const c of r.constraints)
    lines.push(
      `${indent}<constraint${attrs([
        ['name', c.name],
        ['value', c.value],
      ])}></constraint>`,
    );
  for (const w of r.whens) {
    lines.push(`${indent}<when${attrs([['condition', w.condition]])}${w.comment === '' ? '' : attrs([['comment', w.comment]])}>`);
    for (const a of w.actions) lines.push(`${indent}${action(a)}`);
    lines.push(`${indent}</when>`);
  }
  if (r.otherwise) {
    lines.push(`${indent}<otherwise>`);
    for (const a of r.otherwise) lines.push(`${indent}${action(a)}`);
    lines.push(`${indent}</otherwise>`);
  }
  lines.push(`${indent}</rule>`);
  return lines;
}

function ruleSet(set: RuleSetNode): string[] {
  const lines = [
    `<ruleSet${attrs([
      ['name', set.name],
      ['effectiveBegin', set.effectiveBegin],
      ['effectiveEnd', set.effectiveEnd],
    ])}>`,
  ];
  for (const item of set.items) {
    if (item.type === 'rule') lines.push(...rule(item, ''));
    else lines.push(action(item));
  }
  lines.push('</ruleSet>');
  return lines;
}

export function serializeRuleDefinition(definition: RuleDefinition): string {
  const head = `<ruleDefinition${attrs([
    ['alias', definition.alias],
    ['context', definition.context],
    ['production', definition.production],
  ])}>`;
  return [head, ...definition.ruleSets.flatMap(ruleSet), '</ruleDefinition>'].join('\n');
}

/** The IRIS class text; `className` defaults to the definition's own. */
export function serializeRuleClass(definition: RuleDefinition, className = definition.className ?? 'User.Rule'): string {
  return [
    `Class ${className} Extends Ens.Rule.Definition`,
    '{',
    '',
    `Parameter RuleAssistClass = "${definition.ruleAssistClass || ROUTING_RULE_ASSIST}";`,
    '',
    'XData RuleDefinition [ XMLNamespace = "http://www.intersystems.com/rule" ]',
    '{',
    serializeRuleDefinition(definition),
    '}',
    '',
    '}',
    '',
  ].join('\n');
}
