/**
 * Routes the management portal needs beyond the spec: who am I, namespaces, message search, one
 * message, resend, session trace, event-log search, items with their state, the production
 * definition (read and replace) and a test call with its session. Failures answer with the status
 * of their error code.
 */
import { Type } from 'typebox';
import { exportDefinition, exportItem, exportSetting, logEntry, logType } from './production-shapes.ts';
import { classBinding, itemState, messageHeader, messageKind, messageStatus, storedMessage } from './portal-shapes.ts';
import { anyJson, closed, namespaceBody, namespaceQuery, noQuery, ok, route } from './route.ts';
import { test } from './spec-routes.ts';
import { role } from './user-routes.ts';

const tag = 'Portal';
const idParams = (what: string) => closed({ id: Type.Integer({ minimum: 1, description: what }) });
const productionQuery = namespaceQuery({ production: Type.Optional(Type.String({ description: 'Production name (default: the default one)' })) });
const pageLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Page size (default 50, at most 500)' }));
const before = Type.Optional(Type.Integer({ minimum: 0, description: 'Only entries with a smaller id: the last id of the previous page' }));
const session = Type.Optional(Type.Integer({ minimum: 0, description: 'Session id' }));
const timeBound = (what: string) => Type.Optional(Type.String({ description: `${what}: epoch ms, ISO 8601, or YYYY-MM-DD HH:MM[:SS] (UTC)` }));
const namespaces = Type.Array(Type.String());

export const whoami = route({
  method: 'GET',
  path: '/whoami',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The signed-in user, its role and the namespaces',
  querystring: noQuery,
  replies: ok('User', closed({ user: Type.String(), role, namespaces })),
});

export const listNamespaces = route({
  method: 'GET',
  path: '/namespaces',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The namespaces of this server',
  querystring: noQuery,
  replies: ok('Namespaces', closed({ namespaces })),
});

export const searchMessages = route({
  method: 'GET',
  path: '/messages',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Search message headers, newest first; page with `before` = the last id of the previous page',
  querystring: namespaceQuery({
    from: timeBound('Created at or after'),
    to: timeBound('Created at or before'),
    source: Type.Optional(Type.String()),
    target: Type.Optional(Type.String()),
    classname: Type.Optional(Type.String()),
    status: Type.Optional(messageStatus),
    kind: Type.Optional(messageKind),
    session,
    text: Type.Optional(Type.String({ description: 'Text in the body or the error' })),
    before,
    limit: pageLimit,
  }),
  replies: ok('Message headers', closed({ messages: Type.Array(messageHeader), next_before: Type.Union([Type.Integer(), Type.Null()]) })),
});

export const getMessage = route({
  method: 'GET',
  path: '/messages/:id',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'One message: header and body',
  params: idParams('Message id'),
  querystring: namespaceQuery(),
  replies: ok('Message', storedMessage),
});

export const resendMessage = route({
  method: 'POST',
  path: '/messages/:id/resend',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Send a copy of a request again, to its target or another',
  params: idParams('Message id'),
  querystring: namespaceQuery(),
  body: namespaceBody({ target: Type.Optional(Type.String({ description: 'Another target (default: the original one)' })) }),
  replies: ok('The new message', closed({ id: Type.Integer(), session_id: Type.Integer(), target: Type.String() })),
});

export const sessionTrace = route({
  method: 'GET',
  path: '/sessions/:id',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The visual trace of a session: its messages oldest first and its log entries',
  params: idParams('Session id'),
  querystring: namespaceQuery(),
  replies: ok(
    'Trace',
    closed({
      session: Type.Integer(),
      messages: Type.Array(messageHeader),
      // time_logged has whole seconds: the trace orders entries among messages by the millisecond.
      log: Type.Array(closed({ ...logEntry.properties, logged_at: Type.Integer({ description: 'time_logged in epoch milliseconds' }) })),
    }),
  ),
});

export const searchLog = route({
  method: 'GET',
  path: '/log/search',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Search the event log (newest first); page with `before`',
  querystring: namespaceQuery({
    type: Type.Optional(logType),
    item: Type.Optional(Type.String({ description: 'Config name' })),
    text: Type.Optional(Type.String()),
    session,
    before,
    limit: pageLimit,
  }),
  replies: ok('Log entries, newest first', Type.Array(logEntry)),
});

export const items = route({
  method: 'GET',
  path: '/items',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The items of a production with their state, queue depth and error',
  querystring: productionQuery,
  replies: ok('Items', closed({ production: Type.String(), running: Type.Boolean(), items: Type.Array(itemState) })),
});

export const getDefinition = route({
  method: 'GET',
  path: '/definition',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'A production definition (the export shape)',
  querystring: productionQuery,
  replies: ok('Definition', exportDefinition),
});

/**
 * The export shape as sent back: the names and the item list are required (a definition without its
 * items would replace the production by an empty one); every other field may be left out (defaults apply).
 */
const settingInput = closed({ ...Type.Partial(exportSetting).properties, name: Type.String() });
const itemInput = closed({
  ...Type.Partial(exportItem).properties,
  name: Type.String(),
  classname: Type.String(),
  settings: Type.Optional(Type.Array(settingInput)),
});
const definitionInput = closed({ ...Type.Partial(exportDefinition).properties, name: Type.String(), items: Type.Array(itemInput) });

export const putDefinition = route({
  method: 'PUT',
  path: '/definition',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Create or replace a production definition (the export shape); POST /update applies it',
  querystring: namespaceQuery(),
  body: namespaceBody({
    definition: definitionInput,
  }),
  replies: ok(
    'Stored',
    closed({
      production: Type.String(),
      items: Type.Integer(),
      warnings: Type.Array(Type.String(), { description: 'What was stored but will not run as it is, e.g. an item whose class is not registered' }),
    }),
  ),
});

export const testRun = route({
  method: 'POST',
  path: '/test-run',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Send a test message to an item (like POST /test, default restart false) and also answer its session and duration, for the trace',
  querystring: namespaceQuery(),
  body: namespaceBody({ ...test.body.properties, body: Type.Optional(anyJson) }),
  replies: ok('The reply', closed({ ...test.replies[200].schema.properties, session_id: Type.Integer(), duration_ms: Type.Number() })),
});

export const classes = route({
  method: 'GET',
  path: '/classes',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The registered component classes and the settings they declare',
  querystring: namespaceQuery(),
  replies: ok('Classes', closed({ classes: Type.Array(classBinding) })),
});
