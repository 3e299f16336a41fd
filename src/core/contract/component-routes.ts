/**
 * Beyond the spec, in the shapes of IoP 4 (iop-reference §3.9): start, stop and restart one item of
 * the running production, the queue and connection views of a production, and the cluster's nodes.
 * Failures answer with the status of their error code (404 unknown item, 409 not running, …).
 */
import { Type } from 'typebox';
import { anyJson, closed, errorReply, namespaceBody, namespaceQuery, noQuery, ok, route } from './route.ts';

const tag = 'Components';
const productionQuery = namespaceQuery({ production: Type.Optional(Type.String({ description: 'Production name (default: the default production)' })) });

function componentAction<const S extends string>(action: string, status: S, summary: string) {
  return route({
    method: 'POST',
    path: `/component/${action}`,
    role: 'operator',
    spec: false,
    tag,
    summary,
    querystring: namespaceQuery(),
    body: namespaceBody(
      {
        component: Type.Optional(Type.String({ description: 'Config name of the item' })),
        item: Type.Optional(Type.String({ description: 'Alias of component' })),
      },
      '`component` (alias `item`): the config name of the item',
    ),
    replies: {
      ...ok(summary, closed({ status: Type.Literal(status), component: Type.String() })),
      404: { description: 'No such item', schema: errorReply },
      409: { description: 'The production is not running', schema: errorReply },
    },
  });
}

export const componentStart = componentAction('start', 'started', 'Enable and start one item of the running production');
export const componentStop = componentAction('stop', 'stopped', 'Stop and disable one item of the running production');
export const componentRestart = componentAction('restart', 'restarted', 'Restart one item (its Python code is re-imported)');

export const serviceInput = route({
  method: 'POST',
  path: '/component/input',
  role: 'operator',
  spec: false,
  tag,
  summary:
    "Push one input into a business service of the running production, as its adapter would: the service's on_process_input runs on it (flow tests; conveyor_testing)",
  querystring: namespaceQuery(),
  body: namespaceBody({
    service: Type.String({ description: 'Config name of the business service' }),
    classname: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'Python message class `module.Class` of the input; omitted: an empty Ens.Request' }),
    ),
    body: Type.Optional(
      Type.Union([Type.String(), Type.Record(Type.String(), anyJson), Type.Null()], { description: 'The input, a JSON object or JSON text (default {})' }),
    ),
  }),
  replies: {
    ...ok(
      "What on_process_input returned ('' and '' for nothing), and the session the input opened (null when it sent nothing)",
      closed({ classname: Type.String(), body: Type.String(), session_id: Type.Union([Type.Integer(), Type.Null()]) }),
    ),
    404: { description: 'No such item', schema: errorReply },
    409: { description: 'The production or the service is not running', schema: errorReply },
  },
});

export const queues = route({
  method: 'GET',
  path: '/queues',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Queue depth of each item of a production',
  querystring: productionQuery,
  replies: ok(
    'Queues',
    closed({
      production: Type.String(),
      items: Type.Array(
        closed({
          item: Type.String(),
          queue_name: Type.String(),
          class_name: Type.String(),
          exists: Type.Union([Type.Literal(0), Type.Literal(1)]),
          count: Type.Integer(),
        }),
      ),
      warnings: Type.Array(Type.String()),
    }),
  ),
});

const itemKind = Type.Union([Type.Literal('service'), Type.Literal('process'), Type.Literal('operation'), Type.Literal('component')]);

export const connections = route({
  method: 'GET',
  path: '/connections',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Each item of a production, its class and the items it sends to',
  querystring: productionQuery,
  replies: ok(
    'Connections',
    closed({
      production: Type.String(),
      items: Type.Array(
        closed({
          item: Type.String(),
          class_name: Type.String(),
          kind: itemKind,
          adapter_class_name: Type.Optional(Type.String()),
          iop: Type.Optional(Type.Literal(1)),
          module: Type.Optional(Type.String()),
          classname: Type.Optional(Type.String()),
          classpaths: Type.Optional(Type.String()),
          connections: Type.Array(Type.String()),
          warnings: Type.Array(Type.String()),
        }),
      ),
      warnings: Type.Array(Type.String()),
    }),
  ),
});

export const nodes = route({
  method: 'GET',
  path: '/nodes',
  role: 'viewer',
  spec: false,
  tag: 'Cluster',
  summary: 'The nodes serving this store and how long each has been silent',
  querystring: noQuery,
  replies: ok(
    'Nodes',
    closed({
      nodes: Type.Array(closed({ node_id: Type.String(), host: Type.String(), pid: Type.Integer(), self: Type.Boolean(), silent_ms: Type.Integer() })),
    }),
  ),
});

const bindingUse = closed({ production: Type.String(), item: Type.String() });

export const bindings = route({
  method: 'GET',
  path: '/bindings',
  role: 'viewer',
  spec: false,
  tag,
  summary: "The registered Python component classes (IoP's bindings) and the production items using each, sorted by class",
  querystring: namespaceQuery({
    unused: Type.Optional(Type.String({ description: '1, true, yes or on: only the classes no item uses' })),
  }),
  replies: ok(
    'Bindings',
    Type.Array(
      closed({
        class: Type.String({ description: 'The registered name' }),
        super: Type.String({ description: 'The IoP base class of its kind (IOP.BusinessOperation, …)' }),
        module: Type.String(),
        classname: Type.String(),
        classpaths: Type.String({ description: 'Import folders joined by |' }),
        used: Type.Union([Type.Literal(0), Type.Literal(1)]),
        used_by: Type.Array(bindingUse),
      }),
    ),
  ),
});

export const unbind = route({
  method: 'DELETE',
  path: '/binding',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Unregister a Python component class that no production item uses',
  querystring: namespaceQuery({
    class: Type.Optional(Type.String({ description: 'The registered class name' })),
    classname: Type.Optional(Type.String({ description: 'Alias of class' })),
  }),
  replies: {
    ...ok('Unbound', closed({ status: Type.Literal('unbound'), class: Type.String() })),
    404: { description: 'No such class', schema: errorReply },
    409: { description: 'Production items use the class', schema: errorReply },
  },
});
