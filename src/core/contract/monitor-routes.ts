/**
 * The live monitor and the alerts (docs/operations.md, Monitor and Alerts): per-item figures of this
 * node and the production's health; the namespace's alerts and their acknowledgement.
 */
import { Type } from 'typebox';
import { closed, namespaceBody, namespaceQuery, ok, route } from './route.ts';

const tag = 'Monitor';
const nullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const monitorItem = closed({
  name: Type.String(),
  classname: Type.String(),
  kind: Type.String({ description: 'service, process, operation or component' }),
  enabled: Type.Boolean(),
  status: Type.Union([Type.Literal('running'), Type.Literal('stopped'), Type.Literal('error'), Type.Literal('disabled'), Type.Literal('inactive')], {
    description: 'inactive: running, but silent past its InactivityTimeout',
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  jobs: Type.Integer(),
  messages_in: Type.Integer({ description: 'Requests sent to the item (a service: the inputs it handled) on this node since the server started' }),
  messages_out: Type.Integer({ description: 'Requests the item sent' }),
  processed: Type.Integer({ description: 'Requests (inputs) handled successfully' }),
  messages_in_error: Type.Integer({ description: 'Requests (inputs) whose handling failed for good' }),
  queued: Type.Integer({ description: 'Waiting in its queue (store)' }),
  in_progress: Type.Integer({ description: 'Taken by a job, not finished (store)' }),
  last_activity: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 time of the last message in, out or handled' }),
  mean_ms: nullableNumber('Mean processing time (take to outcome, retries included)'),
  p95_ms: nullableNumber('95th percentile processing time (bounded uniform sample)'),
  rate_1m: Type.Number({ description: 'Requests handled per second over the last minute' }),
  rate_5m: Type.Number({ description: 'Requests handled per second over the last five minutes' }),
  queue_count_alert: Type.Integer({ description: 'QueueCountAlert setting (0: none)' }),
  inactivity_timeout: Type.Number({ description: 'InactivityTimeout setting in seconds (0: none)' }),
  trouble: Type.Union([Type.String(), Type.Null()], { description: 'Why this item degrades the production' }),
});

export const monitorReply = closed({
  namespace: Type.String(),
  node: Type.String({ description: 'The node whose figures these are: in a cluster every node counts what it handled' }),
  production: Type.String(),
  status: Type.String({ description: 'The production status (running, stopped, suspended, troubled)' }),
  health: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  reason: Type.String(),
  open_alerts: Type.Integer(),
  time: Type.String({ description: 'ISO 8601 time of the report' }),
  items: Type.Array(monitorItem),
});

export const monitor = route({
  method: 'GET',
  path: '/monitor',
  role: 'viewer',
  spec: false,
  tag,
  summary: "Live figures of each item of the namespace's production on this node, and the production's health (ok, degraded, down) with the reason",
  querystring: namespaceQuery(),
  replies: ok('The monitor report', monitorReply),
});

export const alertJson = closed({
  id: Type.Integer(),
  source: Type.String({ description: 'SourceConfigName: the item the alert is about' }),
  category: Type.Union([Type.Literal('failure'), Type.Literal('item-error'), Type.Literal('restarts'), Type.Literal('queue'), Type.Literal('inactivity')]),
  text: Type.String({ description: 'AlertText of the latest occurrence' }),
  first_time: Type.String(),
  last_time: Type.String(),
  count: Type.Integer({ description: 'Occurrences counted into this alert' }),
  acknowledged: Type.Boolean(),
  acknowledged_by: Type.Union([Type.String(), Type.Null()]),
  acknowledged_at: Type.Union([Type.String(), Type.Null()]),
});

export const alerts = route({
  method: 'GET',
  path: '/alerts',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The alerts of the namespace, newest occurrence first',
  querystring: namespaceQuery({
    state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('acknowledged'), Type.Literal('all')], { description: 'Default all' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many (default 100)' })),
  }),
  replies: ok('Alerts', closed({ alerts: Type.Array(alertJson) })),
});

export const acknowledgeAlerts = route({
  method: 'POST',
  path: '/alerts/acknowledge',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Acknowledge open alerts (a later occurrence opens a new alert)',
  querystring: namespaceQuery(),
  body: namespaceBody({ ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 1000, description: 'Alert ids' }) }),
  replies: ok('How many open alerts were acknowledged (ids unknown or already acknowledged are skipped)', closed({ acknowledged: Type.Integer() })),
});
