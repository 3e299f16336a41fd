/**
 * Queue and message controls (declared in src/core/contract/control-routes.ts; docs/operations.md).
 * The handlers only translate: the engine's ControlOperations check, act and write the event log,
 * naming the authenticated user.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as controls from '../core/contract/control-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { given } from './spec-routes.ts';

const defaultPage = 50;

/** The user an operator route acts for (the auth hook sets it before any handler with a role runs). */
function actor(request: FastifyRequest): string {
  const name = request.user?.name;
  if (!name) throw new ConveyorError('ERR_AUTH', 'This action needs a signed-in user');
  return name;
}

/** The kind of an item whose class is not registered (built-in classes): read from the IRIS naming habit. */
function kindFromName(classname: string): string {
  const lower = classname.toLowerCase();
  if (/service|\.bs|inbound/.test(lower)) return 'service';
  if (/process|router|\.bp/.test(lower)) return 'process';
  if (/operation|\.bo|outbound/.test(lower)) return 'operation';
  return 'component';
}

export function registerControlRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, controls.controlQueues, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const definition = await namespace.getDefinition(given(request.query.production));
    const [status, states, queues, bindings] = await Promise.all([namespace.status(), namespace.items(), namespace.controls.queues(), namespace.classes()]);
    const running = status.status === 'running' && status.production === definition.name;
    const stateOf = new Map(states.map((state) => [state.name, state]));
    const queueOf = new Map(queues.map((queue) => [queue.item, queue]));
    const kindOf = new Map(bindings.map((binding) => [binding.name, binding.kind]));
    return {
      production: definition.name,
      running,
      items: definition.items.map((item) => {
        const state = running ? stateOf.get(item.name) : undefined;
        const queue = queueOf.get(item.name);
        return {
          name: item.name,
          classname: item.classname,
          kind: kindOf.get(item.classname) ?? kindFromName(item.classname),
          enabled: item.enabled,
          state: state?.state ?? (item.enabled ? 'stopped' : 'disabled'),
          waiting: queue?.waiting ?? 0,
          inProgress: queue?.inProgress ?? 0,
          oldest: queue?.oldest ?? null,
          suspended: queue?.suspension != null,
          suspendedBy: queue?.suspension?.suspendedBy ?? null,
          suspendedAt: queue?.suspension?.suspendedAt ?? null,
          suspendedMessages: queue?.suspendedMessages ?? 0,
        };
      }),
    };
  });

  serve(scope, catalog, controls.suspendQueue, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const suspension = await namespace.controls.suspendQueue(request.params.item, actor(request));
    return { item: suspension.item, suspended: true, suspendedBy: suspension.suspendedBy, suspendedAt: suspension.suspendedAt };
  });

  serve(scope, catalog, controls.resumeQueue, async (request) => {
    const namespace = await namespaceOf(request, engine);
    await namespace.controls.resumeQueue(request.params.item, actor(request));
    return { item: request.params.item, suspended: false, suspendedBy: null, suspendedAt: null };
  });

  serve(scope, catalog, controls.messageControls, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const state = await namespace.controls.message(request.params.id);
    return { message: state.message, suspended: state.suspended, actions: state.actions, resentFrom: state.links.resentFrom, resends: state.links.resends };
  });

  serve(scope, catalog, controls.suspendedMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { target, before, limit } = request.query;
    const page = limit ?? defaultPage;
    const messages = await namespace.controls.suspended({
      limit: page,
      ...(given(target) ? { target: given(target)! } : {}),
      ...(before !== undefined ? { beforeId: before } : {}),
    });
    return { messages, next_before: messages.length === page ? (messages.at(-1)?.id ?? null) : null };
  });

  serve(scope, catalog, controls.abortMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    return { results: await namespace.controls.abort(request.body.ids, actor(request)) };
  });

  serve(scope, catalog, controls.discardMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    return { results: await namespace.controls.discard(request.body.ids, actor(request)) };
  });

  serve(scope, catalog, controls.resendMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    return { results: await namespace.controls.resend(request.body.ids, actor(request), given(request.body.target)) };
  });

  serve(scope, catalog, controls.editAndResend, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { body, classname, target } = request.body;
    const edit = { body, ...(given(classname) ? { classname: given(classname)! } : {}), ...(given(target) ? { target: given(target)! } : {}) };
    return namespace.controls.editAndResend(request.params.id, actor(request), edit);
  });
}
