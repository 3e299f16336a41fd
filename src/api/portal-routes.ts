/**
 * Routes the management portal needs beyond the spec (declared in src/core/contract/portal-routes.ts):
 * who am I, namespaces, message search, one message with its body, session trace, resend, items with
 * their state, the production definition (read and replace, for settings edits), class bindings and
 * event-log search. The DTL, schema and lookup routes are in portal-dtl-routes.ts.
 */
import { configuredConnections } from '../core/configured-connections.ts';
import type { FastifyInstance } from 'fastify';
import * as portal from '../core/contract/portal-routes.ts';
import type { QueryOf } from '../core/contract/route.ts';
import { ConveyorError } from '../core/errors.ts';
import type { MessageFilter } from '../store/store.ts';
import { exportJson } from '../core/export-json.ts';
import type { ClassBinding } from '../core/components.ts';
import type { ProductionDefinition } from '../core/production.ts';
import { builtinClasses } from '../engine/builtin/index.ts';
import { logEntryJson, testReply } from './engine-json.ts';
import { definitionFromJson } from './portal-definition.ts';
import { registerPortalDtlRoutes } from './portal-dtl-routes.ts';
import { noServerFileAccess, type ServerFileAccess } from './server-file-access.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { given } from './spec-routes.ts';

const defaultPage = 50;

/** A time bound: epoch milliseconds, or an ISO / `YYYY-MM-DD HH:MM:SS` (UTC) text. */
export function parseTime(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const normalized = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text.replace(' ', 'T')}Z` : text;
  const value = Date.parse(normalized);
  if (Number.isNaN(value))
    throw new ConveyorError('ERR_INVALID_INPUT', `${name} must be a time (YYYY-MM-DD HH:MM:SS in UTC, ISO 8601 or epoch ms), not ${JSON.stringify(text)}`);
  return value;
}

type MessageQuery = QueryOf<typeof portal.searchMessages>;

function messageFilter(query: MessageQuery): MessageFilter {
  const filter: MessageFilter = { limit: query.limit ?? defaultPage };
  const from = parseTime('from', query.from);
  const to = parseTime('to', query.to);
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  for (const field of ['source', 'target', 'classname', 'text'] as const) {
    const value = given(query[field]);
    if (value !== undefined) filter[field] = value;
  }
  if (query.status) filter.status = query.status;
  if (query.kind) filter.kind = query.kind;
  if (query.session !== undefined) filter.sessionId = query.session;
  if (query.before !== undefined) filter.beforeId = query.before;
  return filter;
}

/**
 * A definition is stored even when an item's class is unknown (the package may be migrated later), but
 * not without a word: the reply names each such item, as the plan's validation does.
 */
function unknownClassWarnings(definition: ProductionDefinition, bindings: ClassBinding[], namespace: string): string[] {
  const registered = new Set(bindings.map((binding) => binding.name));
  return definition.items
    .filter((item) => !registered.has(item.classname) && !builtinClasses.has(item.classname))
    .map(
      (item) =>
        `Item ${item.name}: class ${item.classname} is not registered in namespace ${namespace}; the item cannot start until it is (migrate its package, or correct the class name)`,
    );
}

/** Built-in and unregistered classes: read the kind from the IRIS naming habit. */
function guessKind(classname: string): string {
  const lower = classname.toLowerCase();
  if (/service|\.bs|inbound/.test(lower)) return 'service';
  if (/process|router|\.bp/.test(lower)) return 'process';
  if (/operation|\.bo|outbound/.test(lower)) return 'operation';
  return 'component';
}

export function registerPortalRoutes(
  root: FastifyInstance,
  engine: EngineOperations,
  catalog: RouteCatalog | null,
  schemaFiles: ServerFileAccess = noServerFileAccess,
): void {
  const scope = contractScope(root);

  serve(scope, catalog, portal.whoami, async (request) => ({
    user: request.user?.name ?? '',
    role: request.user?.role ?? 'viewer',
    namespaces: await engine.namespaces(),
  }));

  serve(scope, catalog, portal.listNamespaces, async () => ({ namespaces: await engine.namespaces() }));

  serve(scope, catalog, portal.searchMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const filter = messageFilter(request.query);
    const messages = await namespace.messages.search(filter);
    const last = messages.at(-1);
    return { messages, next_before: messages.length === filter.limit && last ? last.id : null };
  });

  serve(scope, catalog, portal.getMessage, async (request) => (await namespaceOf(request, engine)).messages.get(request.params.id));

  serve(scope, catalog, portal.resendMessage, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const id = await namespace.messages.resend(request.params.id, given(request.body.target));
    const copy = await namespace.messages.get(id);
    return { id, session_id: copy.sessionId, target: copy.target };
  });

  serve(scope, catalog, portal.sessionTrace, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const session = request.params.id;
    const messages = await namespace.messages.trace(session);
    if (messages.length === 0) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `No message belongs to session ${session}`);
    const log = await namespace.log.search({ sessionId: session, limit: 1000 });
    return { session, messages, log: log.map((entry) => ({ ...logEntryJson(entry), logged_at: entry.timeLogged })).reverse() };
  });

  serve(scope, catalog, portal.searchLog, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { type, item, text, session, before, limit } = request.query;
    const entries = await namespace.log.search({
      limit: limit ?? defaultPage,
      ...(type ? { type } : {}),
      ...(given(item) ? { configName: item } : {}),
      ...(given(text) ? { text } : {}),
      ...(session !== undefined ? { sessionId: session } : {}),
      ...(before !== undefined ? { beforeId: before } : {}),
    });
    return entries.map(logEntryJson);
  });

  serve(scope, catalog, portal.items, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const definition = await namespace.getDefinition(given(request.query.production));
    const [status, states, depths, bindings] = await Promise.all([namespace.status(), namespace.items(), namespace.queues(), namespace.classes()]);
    const running = status.status === 'running' && status.production === definition.name;
    // The diagram's arrows: the target settings of this definition (drawn before any traffic), and the
    // flows seen at run time when it is the one running.
    const edges = [...configuredConnections(definition, bindings), ...(running ? await namespace.connections() : [])];
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

  serve(scope, catalog, portal.getDefinition, async (request) => {
    const namespace = await namespaceOf(request, engine);
    return exportJson(await namespace.getDefinition(given(request.query.production)));
  });

  serve(scope, catalog, portal.putDefinition, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const sent = request.body.definition;
    const existing = sent.name ? await namespace.getDefinition(sent.name).catch(() => null) : null;
    const definition = definitionFromJson(sent, existing);
    await namespace.putDefinition(definition);
    return {
      production: definition.name,
      items: definition.items.length,
      warnings: unknownClassWarnings(definition, await namespace.classes(), namespace.name),
    };
  });

  serve(scope, catalog, portal.testRun, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { target, classname, body, restart, timeout } = request.body;
    if (target === '') throw new ConveyorError('ERR_INVALID_INPUT', 'target is required: the config name of the item to call');
    const chosenClass = given(classname);
    const result = await namespace.test({
      target,
      ...(chosenClass ? { classname: chosenClass } : {}),
      ...(body !== undefined ? { body } : {}),
      restart: restart ?? false,
      ...(typeof timeout === 'number' ? { timeoutMs: timeout * 1000 } : {}),
    });
    return { ...testReply(result.classname, result.body), session_id: result.sessionId, duration_ms: result.durationMs };
  });

  serve(scope, catalog, portal.classes, async (request) => ({ classes: await (await namespaceOf(request, engine)).classes() }));

  registerPortalDtlRoutes(scope, engine, catalog, schemaFiles);
}
