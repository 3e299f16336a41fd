/**
 * Routing rule routes (docs/rules.md): rule classes (`Ens.Rule.Definition`) listed, read with their
 * history, stored (refused with positioned diagnostics), deleted, compiled, tested on a message
 * (which rule fires and why), and the rule log the routing engines write.
 */
import { Type, type Static } from 'typebox';
import { anyJson, closed, documentRoute, namespaceBody, namespaceQuery, pathText, route } from './route.ts';
import { logEntry } from './production-shapes.ts';

const tag = 'Rules';
const nameParams = closed({ name: pathText('Rule class name, e.g. Demo.RoutingRule') });

const ruleSummary = closed({
  name: Type.String(),
  version: Type.Integer(),
  updatedAt: Type.Integer(),
  context: Type.String({ description: 'The context class of the <ruleDefinition> (EnsLib.MsgRouter.RoutingEngine for routing rules)' }),
  ruleSets: Type.Integer(),
});

const ruleVersionFields = {
  name: Type.String(),
  source: Type.String({ description: 'The IRIS class text (or a bare <ruleDefinition>)' }),
  version: Type.Integer(),
  updatedAt: Type.Integer(),
};

const diagnostic = closed({
  line: Type.Integer(),
  column: Type.Integer(),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
  message: Type.String(),
});

const decidedAction = Type.Union([
  closed({ type: Type.Literal('send'), target: Type.String(), transforms: Type.Array(Type.String()), reason: Type.String() }),
  closed({ type: Type.Literal('delete'), reason: Type.String() }),
]);

const ruleStep = closed({
  rule: Type.String({ description: 'rule#2(name), or ruleSet for an action outside any rule' }),
  outcome: Type.Union([
    Type.Literal('disabled'),
    Type.Literal('constraint not met'),
    Type.Literal('when'),
    Type.Literal('otherwise'),
    Type.Literal('no match'),
    Type.Literal('action'),
    Type.Literal('error'),
  ]),
  detail: Type.String(),
  line: Type.Integer(),
});

export const ruleDecision = closed({
  ruleName: Type.String(),
  ruleSet: Type.Union([closed({ name: Type.String(), effectiveBegin: Type.String(), effectiveEnd: Type.String() }), Type.Null()]),
  actions: Type.Array(decidedAction),
  reason: Type.String({ description: "IRIS's reason: rule#1(name):when#1,rule#3:otherwise" }),
  returnValue: Type.String({ description: 'send:Target[:Transform];delete' }),
  traces: Type.Array(Type.String()),
  steps: Type.Array(ruleStep),
  error: Type.Union([Type.String(), Type.Null()]),
  document: Type.Optional(Type.Unknown({ description: 'The message as the <assign> actions left it (absent when none ran): what the sends carry' })),
});
export type RuleDecisionJson = Static<typeof ruleDecision>;

export const listRules = route(
  documentRoute(tag, 'GET', '/rules', 'viewer', 'The routing rule classes of the namespace', 'Rules', closed({ rules: Type.Array(ruleSummary) })),
);

export const ruleLog = route({
  ...documentRoute(
    tag,
    'GET',
    '/rules/log',
    'viewer',
    'The rule log: which rule fired for each message and why, newest first',
    'Rule log entries',
    closed({ entries: Type.Array(logEntry) }),
  ),
  querystring: namespaceQuery({
    rule: Type.Optional(Type.String({ description: 'Only this rule class' })),
    session: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this session' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many (default 100)' })),
  }),
});

export const getRule = route({
  ...documentRoute(
    tag,
    'GET',
    '/rules/:name',
    'viewer',
    'A rule class (latest or `version`) and its history',
    'Rule',
    closed({ ...ruleVersionFields, history: Type.Array(closed({ version: Type.Integer(), updatedAt: Type.Integer() })) }),
  ),
  params: nameParams,
  querystring: namespaceQuery({ version: Type.Optional(Type.Integer({ minimum: 1, description: 'A stored version' })) }),
});

export const putRule = route({
  ...documentRoute(
    tag,
    'PUT',
    '/rules/:name',
    'operator',
    'Store a new version of a rule class (refused with positioned diagnostics when invalid)',
    'Stored version',
    closed(ruleVersionFields),
  ),
  params: nameParams,
  body: namespaceBody({ source: Type.String({ description: 'The IRIS class text (Class X Extends Ens.Rule.Definition …) or a <ruleDefinition>' }) }),
});

export const deleteRule = route({
  ...documentRoute(tag, 'DELETE', '/rules/:name', 'operator', 'Delete a rule class and its history', 'Deleted', closed({ deleted: Type.String() })),
  params: nameParams,
});

export const compileRule = route({
  ...documentRoute(
    tag,
    'POST',
    '/rules/compile',
    'viewer',
    'Parse and check a rule class; positioned diagnostics',
    'Diagnostics',
    closed({ ok: Type.Boolean(), diagnostics: Type.Array(diagnostic) }),
  ),
  body: namespaceBody({ source: Type.String({ description: 'The rule class text' }) }),
});

export const testRule = route({
  ...documentRoute(
    tag,
    'POST',
    '/rules/test',
    'viewer',
    'Which rule fires for a message, and why: a stored rule (`name`) or a document (`source`)',
    'Decision',
    ruleDecision,
  ),
  body: namespaceBody({
    name: Type.Optional(Type.String({ description: 'A stored rule class' })),
    source: Type.Optional(Type.String({ description: 'A rule class text (e.g. under edit)' })),
    classname: Type.String({ description: 'The message class (msgClass constraint, MsgClass)' }),
    json: Type.Optional(anyJson),
    from: Type.Optional(Type.String({ description: 'The item the message comes from (source constraint, Source)' })),
    at: Type.Optional(Type.String({ description: 'When (ISO 8601): decides which rule set is in effect; default now' })),
  }),
});
