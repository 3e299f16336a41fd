/**
 * Beyond the spec: queue and message controls (docs/operations.md). Per item, suspend and resume its
 * queue; per message, abort, discard, resend (one or many, to the same or another target) and
 * edit-and-resend; the suspended messages (failed requests nobody waited for). Reading needs the
 * viewer role, every action the operator role; each action writes an event-log entry naming the user.
 */
import { Type } from 'typebox';
import { messageHeader } from './portal-shapes.ts';
import { anyJson, closed, errorReply, namespaceBody, namespaceQuery, ok, pathText, route } from './route.ts';

const tag = 'Controls';
const nullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const nullableText = Type.Union([Type.String(), Type.Null()]);
const productionQuery = namespaceQuery({ production: Type.Optional(Type.String({ description: 'Production name (default: the running or default one)' })) });
const itemParams = closed({ item: pathText('Item (config name) whose queue it is') });
const idParams = closed({ id: Type.Integer({ minimum: 1, description: 'Message id' }) });
const messageIds = Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 500, description: 'Message ids (1 to 500)' });
const conflict = (what: string) => ({ 409: { description: what, schema: errorReply } });

const queueState = closed({
  name: Type.String(),
  classname: Type.String(),
  kind: Type.String({ description: 'service | process | operation | component' }),
  enabled: Type.Boolean(),
  state: Type.String({ description: 'running | stopped | error | disabled' }),
  waiting: Type.Integer({ description: 'Requests waiting to be taken' }),
  inProgress: Type.Integer({ description: 'Requests a job is handling (or a node has claimed)' }),
  oldest: nullableInteger,
  suspended: Type.Boolean({ description: 'The queue is suspended: its requests stay queued until it is resumed' }),
  suspendedBy: nullableText,
  suspendedAt: nullableInteger,
  suspendedMessages: Type.Integer({ description: 'Suspended messages (failed requests nobody waited for) sent to the item' }),
});

const suspension = closed({ item: Type.String(), suspended: Type.Boolean(), suspendedBy: nullableText, suspendedAt: nullableInteger });

const resendLink = closed({
  resendId: Type.Integer(),
  originalId: Type.Integer(),
  target: Type.String(),
  edited: Type.Boolean(),
  user: Type.String(),
  createdAt: Type.Integer(),
});

const messageAction = Type.Union([Type.Literal('abort'), Type.Literal('discard'), Type.Literal('resend'), Type.Literal('edit-resend')]);
const outcome = closed({ id: Type.Integer(), done: Type.Boolean(), reason: nullableText });
const resent = closed({ id: Type.Integer({ description: 'The original' }), resendId: Type.Integer({ description: 'The new message' }), target: Type.String() });

export const controlQueues = route({
  method: 'GET',
  path: '/controls/queues',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'The items of a production with their queue: waiting, in progress, suspended, suspended messages',
  querystring: productionQuery,
  replies: ok('Queues', closed({ production: Type.String(), running: Type.Boolean(), items: Type.Array(queueState) })),
});

export const suspendQueue = route({
  method: 'POST',
  path: '/controls/queues/:item/suspend',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Suspend the queue of an item: its requests stay queued and are not delivered until it is resumed (kept across restarts)',
  params: itemParams,
  querystring: namespaceQuery(),
  body: namespaceBody(),
  replies: { ...ok('The queue', suspension), 404: { description: 'No such item', schema: errorReply } },
});

export const resumeQueue = route({
  method: 'POST',
  path: '/controls/queues/:item/resume',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Resume the queue of an item: its waiting requests are delivered again, in order',
  params: itemParams,
  querystring: namespaceQuery(),
  body: namespaceBody(),
  replies: ok('The queue', suspension),
});

export const messageControls = route({
  method: 'GET',
  path: '/controls/messages/:id',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'A message with the actions its status allows and its resend links',
  params: idParams,
  querystring: namespaceQuery(),
  replies: ok(
    'The message',
    closed({
      message: messageHeader,
      suspended: Type.Boolean(),
      actions: Type.Array(messageAction),
      resentFrom: Type.Union([resendLink, Type.Null()]),
      resends: Type.Array(resendLink),
    }),
  ),
});

export const suspendedMessages = route({
  method: 'GET',
  path: '/controls/suspended',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Suspended messages (requests that failed for good while no caller waited), newest first',
  querystring: namespaceQuery({
    target: Type.Optional(Type.String({ description: 'Only those sent to this item' })),
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Only ids lower than this: the last id of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Page size (default 50, at most 500)' })),
  }),
  replies: ok('Message headers', closed({ messages: Type.Array(messageHeader), next_before: nullableInteger })),
});

export const abortMessages = route({
  method: 'POST',
  path: '/controls/messages/abort',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Take queued requests out of their queue (status discarded, error "Aborted by <user>")',
  querystring: namespaceQuery(),
  body: namespaceBody({ ids: messageIds }),
  replies: {
    ...ok('What became of each', closed({ results: Type.Array(outcome) })),
    ...conflict('A message is not queued, or a job is handling it: nothing was changed'),
  },
});

export const discardMessages = route({
  method: 'POST',
  path: '/controls/messages/discard',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Discard requests in error (suspended or not): status discarded, error text kept',
  querystring: namespaceQuery(),
  body: namespaceBody({ ids: messageIds }),
  replies: { ...ok('What became of each', closed({ results: Type.Array(outcome) })), ...conflict('A message is not in error: nothing was changed') },
});

export const resendMessages = route({
  method: 'POST',
  path: '/controls/messages/resend',
  role: 'operator',
  spec: false,
  tag,
  summary: 'Send copies of requests again, to their targets or to another item; each new message is linked to its original',
  querystring: namespaceQuery(),
  body: namespaceBody({
    ids: messageIds,
    target: Type.Optional(Type.String({ minLength: 1, description: 'Another target (default: each original one)' })),
  }),
  replies: ok('The new messages', closed({ results: Type.Array(resent) })),
});

export const editAndResend = route({
  method: 'POST',
  path: '/controls/messages/:id/edit-resend',
  role: 'operator',
  spec: false,
  tag,
  summary: "Send a request again with an edited body (checked like a test call's), linked to its original",
  params: idParams,
  querystring: namespaceQuery(),
  body: namespaceBody({
    body: anyJson,
    classname: Type.Optional(Type.String({ minLength: 1, description: 'Message class (default: the original one)' })),
    target: Type.Optional(Type.String({ minLength: 1, description: 'Another target (default: the original one)' })),
  }),
  replies: ok('The new message', resent),
});
