/**
 * Beyond the spec, IoP 4's production-as-code workflow on the server (iop4-reference §4.6–§4.9):
 * validate a desired definition, diff it against the stored one, plan the change (safe and
 * destructive operations), apply the plan (recording the definition it replaces) and roll back to
 * the recorded one. The desired definition travels in the spec's export shape or in IoP's export form.
 * Failures answer with the status of their error code (400 bad definition, 404, 409 blocked or stale).
 */
import { Type, type TProperties } from 'typebox';
import { exportDefinition } from './production-shapes.ts';
import { anyJson, closed, errorReply, namespaceBody, namespaceQuery, ok, route } from './route.ts';

const tag = 'Production changes';

const definitionField = Type.Union([exportDefinition, Type.Record(Type.String(), anyJson)], {
  description: 'The desired definition: the export shape of GET /export, or IoP\'s form {"<Name>": {"@Name": …, "Item": […]}} (also keyed Production)',
});

const issue = closed({
  kind: Type.String({ description: 'class | route | setting' }),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
  path: Type.String(),
  message: Type.String(),
  suggestion: Type.Optional(Type.String()),
});

const change = {
  action: Type.Union([Type.Literal('add'), Type.Literal('remove'), Type.Literal('change')]),
  kind: Type.Union([Type.Literal('production'), Type.Literal('item'), Type.Literal('setting'), Type.Literal('connection')]),
  path: Type.String(),
  before: Type.Optional(anyJson),
  after: Type.Optional(anyJson),
};

const operation = closed({
  id: Type.String({ description: 'NNNN-<op_type>, in plan order' }),
  op_type: Type.String({
    description:
      'add_item | delete_item | replace_item_class | set_item_field | set_setting | remove_setting | set_route_setting | remove_route | set_production_field',
  }),
  ...change,
  risk: Type.Union([Type.Literal('safe'), Type.Literal('destructive')]),
  allowed_by_default: Type.Boolean(),
  reason: Type.Optional(Type.String()),
});

export const planReply = closed({
  id: Type.String({ description: 'SHA-256 of the production, both fingerprints and the operations' }),
  production: Type.String(),
  namespace: Type.String(),
  exists: Type.Boolean({ description: 'false when the production is not stored yet (the plan creates it)' }),
  source_fingerprint: Type.String({ description: "SHA-256 of the stored definition's canonical JSON ('' when none)" }),
  desired_fingerprint: Type.String(),
  has_changes: Type.Boolean(),
  operations: Type.Array(operation),
  issues: Type.Array(issue, { description: 'What validation found in the desired definition' }),
});

function changeBody<const P extends TProperties>(extra: P = {} as P) {
  return namespaceBody({ definition: definitionField, ...extra });
}

export const validate = route({
  method: 'POST',
  path: '/production/validate',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Check a desired definition: unregistered classes, routes to missing items',
  querystring: namespaceQuery(),
  body: changeBody(),
  replies: {
    ...ok('The report', closed({ production: Type.String(), has_issues: Type.Boolean(), issues: Type.Array(issue) })),
    400: { description: 'Not a definition', schema: errorReply },
  },
});

export const diff = route({
  method: 'POST',
  path: '/production/diff',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'What changes from the stored definition to the desired one',
  querystring: namespaceQuery(),
  body: changeBody(),
  replies: {
    ...ok('The changes', closed({ production: Type.String(), has_changes: Type.Boolean(), changes: Type.Array(closed(change)) })),
    400: { description: 'Not a definition', schema: errorReply },
  },
});

export const plan = route({
  method: 'POST',
  path: '/production/plan',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The change plan from the stored definition to the desired one; destructive operations need allow_destructive to apply',
  querystring: namespaceQuery(),
  body: changeBody(),
  replies: { ...ok('The plan', planReply), 400: { description: 'Not a definition', schema: errorReply } },
});

export const applyReply = closed({
  production: Type.String(),
  plan_id: Type.String(),
  applied: Type.Integer({ description: 'Operations applied' }),
  destructive: Type.Integer({ description: 'Of them, destructive ones (allowed by allow_destructive)' }),
  skipped: Type.Array(Type.String(), { description: 'Ids of the destructive operations skip_blocked left out (not applied)' }),
  previous_fingerprint: Type.String({ description: "Fingerprint of the definition replaced ('' when the production is new); rollback restores it" }),
  fingerprint: Type.String({ description: 'Fingerprint of the definition now stored' }),
  updated_runtime: Type.Boolean({ description: 'The production is running and was updated to the new definition' }),
  update_error: Type.Optional(Type.String({ description: 'Why updating the running production failed (the definition is stored; POST /update retries)' })),
});

export const apply = route({
  method: 'POST',
  path: '/production/apply',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Store the desired definition, recording the one it replaces (one write), and update the production when it runs',
  querystring: namespaceQuery(),
  body: changeBody({
    allow_destructive: Type.Optional(
      Type.Boolean({ description: 'Apply a plan with deletions, removed settings or routes, or replaced classes (default false: refused)' }),
    ),
    source_fingerprint: Type.Optional(
      Type.String({ description: "The plan's source_fingerprint: refused (409) when the stored definition changed since the plan was made" }),
    ),
    skip_blocked: Type.Optional(
      Type.Boolean({
        description:
          "IoP's apply: without allow_destructive, apply the safe operations and skip the destructive ones (listed in skipped) instead of refusing the plan",
      }),
    ),
  }),
  replies: {
    ...ok('Applied', applyReply),
    400: { description: 'Not a definition', schema: errorReply },
    409: { description: 'Destructive operations without allow_destructive, or the stored definition changed', schema: errorReply },
  },
});

export const rollback = route({
  method: 'POST',
  path: '/production/rollback',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Restore the definition the last apply replaced (the restored one is recorded in turn: a second rollback re-applies)',
  querystring: namespaceQuery(),
  body: namespaceBody({ production: Type.String({ minLength: 1, description: 'Production name' }) }),
  replies: {
    ...ok('Restored', applyReply),
    404: { description: 'Unknown production, or no apply recorded', schema: errorReply },
  },
});

export const previous = route({
  method: 'GET',
  path: '/production/previous',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The definition a rollback would restore (null when none is recorded)',
  querystring: namespaceQuery({ production: Type.String({ minLength: 1, description: 'Production name' }) }),
  replies: {
    ...ok('The recorded definition', closed({ production: Type.String(), previous: Type.Union([exportDefinition, Type.Null()]) })),
    404: { description: 'Unknown production', schema: errorReply },
  },
});
