/**
 * Routes the management portal needs beyond the spec: who am I, namespaces, message search, one
 * message with its body, session trace, resend, items with their state, the production definition
 * (read and replace, for settings edits), class bindings and event-log search. The DTL, schema and
 * lookup routes are in portal-dtl-routes.ts. Failures answer with the status of their error code.
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { logTypes, type LogType } from '../core/log.ts';
import type { MessageKind, MessageStatus } from '../core/message.ts';
import type { MessageFilter } from '../store/store.ts';
import { exportJson, logEntryJson, testReply } from './http-shapes.ts';
import { definitionFromJson } from './portal-definition.ts';
import { registerPortalDtlRoutes } from './portal-dtl-routes.ts';
import type { PortalEngine } from './portal-engine.ts';
import { bodyObject, optionalBoolean, optionalString, queryInteger, queryString, requestNamespace, requiredString } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

const tag = 'Portal';
const messageStatuses: readonly MessageStatus[] = ['queued', 'delivered', 'completed', 'error', 'discarded'];
const defaultPage = 50;
const maxPage = 500;

/** A page size from `limit`: default 50, at most 500. */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return defaultPage;
  if (limit < 1 || limit > maxPage) throw new ConveyorError('ERR_INVALID_INPUT', `limit must be between 1 and ${maxPage}, not ${limit}`);
  return limit;
}

/** A time bound: epoch milliseconds, or an ISO / `YYYY-MM-DD HH:MM:SS` (UTC) text. */
export function parseTime(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const normalized = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text.replace(' ', 'T')}Z` : text;
  const value = Date.parse(normalized);
  if (Number.isNaN(value)) throw new ConveyorError('ERR_INVALID_INPUT', `${name} must be a time (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601 or epoch ms), not ${JSON.stringify(text)}`);
  return value;
}

function pathId(params: unknown, name: string): number {
  const text = (params as Record<string, string>)[name] ?? '';
  if (!/^\d+$/.test(text)) throw new ConveyorError('ERR_INVALID_INPUT', `The ${name} in the path must be a positive integer, not ${JSON.stringify(text)}`);
  return Number(text);
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new ConveyorError('ERR_INVALID_INPUT', `${name} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
  return value as T;
}

function messageFilter(request: Parameters<typeof queryString>[0]): MessageFilter {
  const filter: MessageFilter = { limit: pageSize(queryInteger(request, 'limit')) };
  const from = parseTime('from', queryString(request, 'from'));
  const to = parseTime('to', queryString(request, 'to'));
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  for (const field of ['source', 'target', 'classname', 'text'] as const) {
    const value = queryString(request, field);
    if (value !== undefined) filter[field] = value;
  }
  const status = oneOf('status', queryString(request, 'status'), messageStatuses);
  if (status) filter.status = status;
  const kind = oneOf<MessageKind>('kind', queryString(request, 'kind'), ['request', 'response']);
  if (kind) filter.kind = kind;
  const session = queryInteger(request, 'session');
  if (session !== undefined) filter.sessionId = session;
  const before = queryInteger(request, 'before');
  if (before !== undefined) filter.beforeId = before;
  return filter;
}

function requireService<T>(service: T | undefined, what: string): T {
  if (service === undefined) throw new ConveyorError('ERR_NOT_AVAILABLE', `This server's engine does not offer ${what}`);
  return service;
}

export function registerPortalRoutes(scope: FastifyInstance, engine: PortalEngine, catalog: RouteCatalog | null): void {
  const route = (description: Omit<Parameters<typeof addRoute>[2], 'spec' | 'tag'>, handler: Parameters<typeof addRoute>[3]) =>
    addRoute(scope, catalog, { ...description, spec: false, tag }, handler);
  const any = { type: 'object' };

  route({ method: 'GET', url: '/whoami', role: 'viewer', summary: 'The signed-in user, its role and the namespaces', responses: s.ok('User', any) }, async (request) => ({
    user: request.user?.name ?? '',
    role: request.user?.role ?? 'viewer',
    namespaces: await engine.namespaces(),
  }));

  route({ method: 'GET', url: '/namespaces', role: 'viewer', summary: 'The namespaces of this server', responses: s.ok('Namespaces', any) }, async () => ({ namespaces: await engine.namespaces() }));

  route(
    {
      method: 'GET',
      url: '/messages',
      role: 'viewer',
      summary: 'Search message headers, newest first; page with `before` = the last id of the previous page',
      parameters: [s.namespaceQuery, ...['from', 'to', 'source', 'target', 'classname', 'status', 'kind', 'session', 'text', 'before', 'limit'].map((name) => s.queryParameter(name, `Filter: ${name}`))],
      responses: s.ok('Message headers', any),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const filter = messageFilter(request);
      const messages = await engine.searchMessages(namespace, filter);
      const last = messages.at(-1);
      return { messages, next_before: messages.length === filter.limit && last ? last.id : null };
    },
  );

  route({ method: 'GET', url: '/messages/:id', role: 'viewer', summary: 'One message: header and body', parameters: [s.namespaceQuery, s.pathParameter('id', 'Message id')], responses: s.ok('Message', any) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    return engine.getMessage(namespace, pathId(request.params, 'id'));
  });

  route(
    { method: 'POST', url: '/messages/:id/resend', role: 'operator', summary: 'Send a copy of a request again, to its target or another', parameters: [s.namespaceQuery, s.pathParameter('id', 'Message id')], body: { schema: s.object({ target: s.str, namespace: s.str }, []), required: false }, responses: s.ok('The new message', any) },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const target = optionalString(bodyObject(request), 'target');
      const id = await engine.resend(namespace, pathId(request.params, 'id'), target);
      const copy = await engine.getMessage(namespace, id);
      return { id, session_id: copy.sessionId, target: copy.target };
    },
  );

  route({ method: 'GET', url: '/sessions/:id', role: 'viewer', summary: 'The visual trace of a session: its messages oldest first and its log entries', parameters: [s.namespaceQuery, s.pathParameter('id', 'Session id')], responses: s.ok('Trace', any) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const session = pathId(request.params, 'id');
    const messages = await engine.sessionTrace(namespace, session);
    if (messages.length === 0) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `No message belongs to session ${session}`);
    const log = engine.searchLog ? await engine.searchLog(namespace, { sessionId: session, limit: 1000 }) : [];
    return { session, messages, log: log.map(logEntryJson).reverse() };
  });

  route(
    {
      method: 'GET',
      url: '/log/search',
      role: 'viewer',
      summary: 'Search the event log (newest first); page with `before`',
      parameters: [s.namespaceQuery, ...['type', 'item', 'text', 'session', 'before', 'limit'].map((name) => s.queryParameter(name, `Filter: ${name}`))],
      responses: s.ok('Log entries, newest first', s.arrayOf(s.logEntrySchema)),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const search = requireService(engine.searchLog?.bind(engine), 'event-log search');
      const type = oneOf<LogType>('type', queryString(request, 'type'), logTypes);
      const item = queryString(request, 'item');
      const text = queryString(request, 'text');
      const session = queryInteger(request, 'session');
      const before = queryInteger(request, 'before');
      const entries = await search(namespace, {
        limit: pageSize(queryInteger(request, 'limit')),
        ...(type ? { type } : {}),
        ...(item ? { configName: item } : {}),
        ...(text ? { text } : {}),
        ...(session !== undefined ? { sessionId: session } : {}),
        ...(before !== undefined ? { beforeId: before } : {}),
      });
      return entries.map(logEntryJson);
    },
  );

  route({ method: 'GET', url: '/items', role: 'viewer', summary: 'The items of a production with their state, queue depth and error', parameters: [s.namespaceQuery, s.queryParameter('production', 'Production name (default: the default one)')], responses: s.ok('Items', any) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const definition = await engine.getDefinition(namespace, queryString(request, 'production'));
    const [status, states, depths, edges, bindings] = await Promise.all([engine.status(namespace), engine.items(namespace), engine.queues(namespace), engine.connections(namespace), engine.classes(namespace)]);
    const running = status.status === 'running' && status.production === definition.name;
    const stateOf = new Map(states.map((state) => [state.name, state]));
    const depthOf = new Map(depths.map((depth) => [depth.target, depth]));
    const kindOf = new Map(bindings.map((binding) => [binding.name, binding.kind]));
    return {
      production: definition.name,
      running,
      items: definition.items.map((item) => {
        const state = running ? stateOf.get(item.name) : undefined;
        const depth = depthOf.get(item.name);
        return {
          name: item.name,
          classname: item.classname,
          kind: kindOf.get(item.classname) ?? guessKind(item.classname),
          enabled: item.enabled,
          state: state?.state ?? (item.enabled ? 'stopped' : 'disabled'),
          jobs: state?.jobs ?? 0,
          error: state?.error ?? null,
          queued: depth?.queued ?? 0,
          delivered: depth?.delivered ?? 0,
          oldest: depth?.oldest ?? null,
          targets: [...new Set(edges.filter((edge) => edge.from === item.name).map((edge) => edge.to))],
        };
      }),
    };
  });

  route({ method: 'GET', url: '/definition', role: 'viewer', summary: 'A production definition (the export shape)', parameters: [s.namespaceQuery, s.queryParameter('production', 'Production name (default: the default one)')], responses: s.ok('Definition', s.exportSchema) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    return exportJson(await engine.getDefinition(namespace, queryString(request, 'production')));
  });

  route(
    { method: 'PUT', url: '/definition', role: 'admin', summary: 'Create or replace a production definition (the export shape); POST /update applies it', parameters: [s.namespaceQuery], body: { schema: s.object({ definition: s.exportSchema, namespace: s.str }, ['definition']), required: true }, responses: s.ok('Stored', any) },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const given = bodyObject(request).definition;
      const name = typeof given === 'object' && given !== null ? (given as { name?: unknown }).name : undefined;
      const existing = typeof name === 'string' && name !== '' ? await engine.getDefinition(namespace, name).catch(() => null) : null;
      const definition = definitionFromJson(given, existing);
      await engine.putDefinition(namespace, definition);
      return { production: definition.name, items: definition.items.length };
    },
  );

  route(
    {
      method: 'POST',
      url: '/test-run',
      role: 'operator',
      summary: 'Send a test message to an item (like POST /test) and also answer its session and duration, for the trace',
      parameters: [s.namespaceQuery],
      body: { schema: s.object({ target: s.str, classname: s.str, body: {}, restart: s.bool, namespace: s.str }, ['target']), required: true },
      responses: s.ok('The reply', any),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const body = bodyObject(request);
      const target = requiredString(body, 'target', 'the config name of the item to call');
      const classname = optionalString(body, 'classname');
      const restart = optionalBoolean(body, 'restart');
      const result = await engine.test(namespace, { target, ...(classname ? { classname } : {}), ...(body.body !== undefined ? { body: body.body } : {}), restart: restart ?? false });
      return { ...testReply(result.classname, result.body), session_id: result.sessionId, duration_ms: result.durationMs };
    },
  );

  route({ method: 'GET', url: '/classes', role: 'viewer', summary: 'The registered component classes and the settings they declare', parameters: [s.namespaceQuery], responses: s.ok('Classes', any) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    return { classes: await engine.classes(namespace) };
  });

  registerPortalDtlRoutes(scope, engine, catalog, (what) => requireService(engine.dtl, what));
}

/** Built-in and unregistered classes: read the kind from the IRIS naming habit. */
function guessKind(classname: string): string {
  const lower = classname.toLowerCase();
  if (/service|\.bs|inbound/.test(lower)) return 'service';
  if (/process|router|\.bp/.test(lower)) return 'process';
  if (/operation|\.bo|outbound/.test(lower)) return 'operation';
  return 'component';
}
