/**
 * Reads a rule class: the IRIS class text (`Class X Extends Ens.Rule.Definition { Parameter
 * RuleAssistClass = "…"; XData RuleDefinition [ XMLNamespace = … ] { <ruleDefinition …> } }`) or a
 * bare `<ruleDefinition>` document. The XML goes through the DTL's XML reader (same limits: depth,
 * size, no entity expansion). The XData body is padded so line:column stay those of the class text.
 * Unknown elements and attribute values out of their lists are positioned errors.
 */
import { classHeader, xdataBody } from '../dtl/class-text.ts';
import { DtlSyntaxError } from '../dtl/diagnostics.ts';
import { readXml, type XmlElement } from '../dtl/xml-reader.ts';
import {
  CONSTRAINT_NAMES,
  type RuleAction,
  type RuleConstraint,
  type RuleDefinition,
  type RuleNode,
  type RuleSetItem,
  type RuleSetNode,
  type WhenClause,
} from './model.ts';

const BASE_CLASS = 'Ens.Rule.Definition';

function attr(element: XmlElement, name: string): string {
  return element.attributes.get(name)?.value ?? '';
}

function onlyAttributes(element: XmlElement, allowed: readonly string[]): void {
  for (const [name, value] of element.attributes) {
    if (!allowed.includes(name))
      throw new DtlSyntaxError(`<${element.name}> has no attribute ${name} (allowed: ${allowed.join(', ') || 'none'})`, value.namePos);
  }
}

function readAction(element: XmlElement): RuleAction {
  switch (element.name) {
    case 'send': {
      onlyAttributes(element, ['target', 'transform']);
      const target = attr(element, 'target').trim();
      if (target === '') throw new DtlSyntaxError('<send> needs a target (one item name or several, comma-separated)', element.pos);
      return { type: 'send', target, transform: attr(element, 'transform').trim(), pos: element.pos };
    }
    case 'return':
      onlyAttributes(element, []);
      return { type: 'return', pos: element.pos };
    case 'delete':
      onlyAttributes(element, []);
      return { type: 'delete', pos: element.pos };
    case 'trace': {
      onlyAttributes(element, ['value']);
      const value = element.attributes.get('value');
      if (!value || value.value.trim() === '') throw new DtlSyntaxError('<trace> needs a value (an expression)', element.pos);
      return { type: 'trace', value: value.value, valuePos: value.pos, pos: element.pos };
    }
    case 'rule':
      throw new DtlSyntaxError('nested <rule> elements are not supported: write the rules one after another in the rule set', element.pos);
    case 'assign': {
      onlyAttributes(element, ['property', 'value']);
      const property = element.attributes.get('property');
      const value = element.attributes.get('value');
      if (!property || !value || value.value.trim() === '') throw new DtlSyntaxError('<assign> needs a property and a value (an expression)', element.pos);
      return { type: 'assign', property: property.value.trim(), propertyPos: property.pos, value: value.value, valuePos: value.pos, pos: element.pos };
    }
    default:
      throw new DtlSyntaxError(`<${element.name}> is not a routing action (send, return, delete, assign or trace)`, element.pos);
  }
}

function readConstraint(element: XmlElement): RuleConstraint {
  onlyAttributes(element, ['name', 'value']);
  const name = attr(element, 'name');
  if (!(CONSTRAINT_NAMES as readonly string[]).includes(name)) {
    const at = element.attributes.get('name')?.pos ?? element.pos;
    throw new DtlSyntaxError(`unknown constraint "${name}" (expected ${CONSTRAINT_NAMES.join(', ')})`, at);
  }
  return { name, value: attr(element, 'value'), pos: element.pos };
}

function readWhen(element: XmlElement): WhenClause {
  onlyAttributes(element, ['condition', 'comment']);
  const condition = element.attributes.get('condition');
  if (!condition || condition.value.trim() === '') throw new DtlSyntaxError('<when> needs a condition', element.pos);
  return {
    condition: condition.value,
    conditionPos: condition.pos,
    comment: attr(element, 'comment'),
    actions: element.children.map(readAction),
    pos: element.pos,
  };
}

function readRule(element: XmlElement): RuleNode {
  onlyAttributes(element, ['name', 'disabled']);
  const disabled = attr(element, 'disabled');
  if (!['', 'true', 'false', '1', '0'].includes(disabled)) {
    throw new DtlSyntaxError(`disabled must be true or false, found "${disabled}"`, element.attributes.get('disabled')!.pos);
  }
  const rule: RuleNode = {
    type: 'rule',
    name: attr(element, 'name'),
    disabled: disabled === 'true' || disabled === '1',
    constraints: [],
    whens: [],
    otherwise: null,
    pos: element.pos,
  };
  for (const child of element.children) {
    if (child.name === 'constraint') {
      if (rule.whens.length > 0 || rule.otherwise) throw new DtlSyntaxError('<constraint> must come before the <when> clauses', child.pos);
      rule.constraints.push(readConstraint(child));
    } else if (child.name === 'when') {
      if (rule.otherwise) throw new DtlSyntaxError('<when> after <otherwise>: <otherwise> must be last', child.pos);
      rule.whens.push(readWhen(child));
    } else if (child.name === 'otherwise') {
      if (rule.otherwise) throw new DtlSyntaxError('a rule has one <otherwise> at most', child.pos);
      onlyAttributes(child, ['comment']);
      rule.otherwise = child.children.map(readAction);
    } else {
      throw new DtlSyntaxError(`<${child.name}> is not allowed in a <rule> (constraint, when, otherwise)`, child.pos);
    }
  }
  return rule;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/;

function readDate(element: XmlElement, name: string): string {
  const value = attr(element, name).trim();
  if (value !== '' && !DATE_TIME.test(value)) {
    throw new DtlSyntaxError(`${name} must be YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, found "${value}"`, element.attributes.get(name)!.pos);
  }
  return value;
}

function readRuleSet(element: XmlElement): RuleSetNode {
  onlyAttributes(element, ['name', 'effectiveBegin', 'effectiveEnd']);
  const items: RuleSetItem[] = element.children.map((child) => (child.name === 'rule' ? readRule(child) : readAction(child)));
  return {
    name: attr(element, 'name'),
    effectiveBegin: readDate(element, 'effectiveBegin'),
    effectiveEnd: readDate(element, 'effectiveEnd'),
    items,
    pos: element.pos,
  };
}

function readDefinition(root: XmlElement, className: string | null, ruleAssistClass: string): RuleDefinition {
  if (root.name !== 'ruleDefinition') throw new DtlSyntaxError(`expected a <ruleDefinition> element, found <${root.name}>`, root.pos);
  onlyAttributes(root, ['alias', 'context', 'production']);
  const ruleSets = root.children.map((child) => {
    if (child.name !== 'ruleSet') throw new DtlSyntaxError(`<${child.name}> is not allowed in <ruleDefinition> (ruleSet)`, child.pos);
    return readRuleSet(child);
  });
  return {
    className,
    ruleAssistClass,
    alias: attr(root, 'alias'),
    context: attr(root, 'context'),
    production: attr(root, 'production'),
    ruleSets,
    pos: root.pos,
  };
}

function readClassText(text: string): RuleDefinition {
  const header = classHeader(text, BASE_CLASS, 'expected a "Class <name> Extends Ens.Rule.Definition" header or a <ruleDefinition> element');
  const assist = /^[ \t]*Parameter\s+RuleAssistClass\s*=\s*"?([%\w.]*)"?\s*;/m.exec(text);
  return readDefinition(readXml(xdataBody(text, 'RuleDefinition', 'ruleDefinition')), header.name, assist?.[1] ?? '');
}

/** Parses a rule class or a bare `<ruleDefinition>`. Throws DtlSyntaxError at the first problem. */
export function readRuleDefinition(text: string): RuleDefinition {
  const clean = text.replace(/^\uFEFF/, '');
  if (!clean.trimStart().startsWith('<')) return readClassText(clean);
  return readDefinition(readXml(clean), null, '');
}
