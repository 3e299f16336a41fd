/**
 * The routes of the spec's "Routes" table (except `PUT /migrate`, in migrate-route.ts): version,
 * status, lifecycle, list, default production, log, export and test.
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import { exportJson, listRecord, logEntryJson, testReply } from './http-shapes.ts';
import type { ResolvedApiOptions } from './options.ts';
import { bodyObject, describe, optionalBoolean, optionalString, queryInteger, queryString, requestNamespace, requiredString } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

const tag = 'Productions';

export function registerSpecRoutes(scope: FastifyInstance, engine: EngineApi, options: ResolvedApiOptions, catalog: RouteCatalog | null): void {
  addRoute(scope, catalog, { method: 'GET', url: '/version', role: 'viewer', spec: true, tag, summary: 'API version and description', parameters: [s.namespaceQuery], responses: s.ok('The version', s.versionSchema) }, async () => ({
    version: options.version.version,
    description: options.version.description,
  }));

  addRoute(scope, catalog, { method: 'GET', url: '/status', role: 'viewer', spec: true, tag, summary: 'The current (or last) production of the namespace and its status', parameters: [s.namespaceQuery], responses: s.ok('Production and status', s.statusSchema) }, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const { production, status } = await engine.status(namespace);
    return { production, status };
  });

  addRoute(
    scope,
    catalog,
    {
      method: 'POST',
      url: '/start',
      role: 'operator',
      spec: true,
      tag,
      summary: 'Start the named production, or the default (last-used) one',
      parameters: [s.namespaceQuery],
      body: { schema: s.object({ production: s.str, namespace: s.str }, []), required: false },
      responses: s.ok('Started', s.startedSchema),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const production = await engine.start(namespace, optionalString(bodyObject(request), 'production'));
      return { status: 'started', production };
    },
  );

  const lifecycle = [
    { url: '/stop', status: 'stopped', summary: 'Stop the running production (queues drain, hooks run)', run: (ns: string) => engine.stop(ns) },
    { url: '/kill', status: 'killed', summary: 'Force-stop the production; in-flight messages stay queued', run: (ns: string) => engine.kill(ns) },
    { url: '/restart', status: 'restarted', summary: 'Stop and start the running production', run: (ns: string) => engine.restart(ns) },
    { url: '/update', status: 'updated', summary: 'Apply the stored definition to the running production', run: (ns: string) => engine.update(ns) },
  ];
  for (const { url, status, summary, run } of lifecycle) {
    addRoute(scope, catalog, { method: 'POST', url, role: 'operator', spec: true, tag, summary, parameters: [s.namespaceQuery], body: s.namespaceOnlyBody, responses: s.ok(summary, s.lifecycleSchema(status)) }, async (request) => {
      await run(await requestNamespace(request, engine));
      return { status };
    });
  }

  addRoute(scope, catalog, { method: 'GET', url: '/list', role: 'viewer', spec: true, tag, summary: 'The productions of the namespace, keyed by name', parameters: [s.namespaceQuery], responses: s.ok('Productions', s.listSchema) }, async (request) => {
    const summaries = await engine.list(await requestNamespace(request, engine));
    return Object.fromEntries(Object.entries(summaries).map(([name, summary]) => [name, listRecord(summary)]));
  });

  addRoute(scope, catalog, { method: 'GET', url: '/default', role: 'viewer', spec: true, tag, summary: "The namespace's default production ('' when none)", parameters: [s.namespaceQuery], responses: s.ok('Default production', s.defaultSchema) }, async (request) => ({
    production: await engine.getDefault(await requestNamespace(request, engine)),
  }));

  addRoute(
    scope,
    catalog,
    {
      method: 'PUT',
      url: '/default',
      role: 'admin',
      spec: true,
      tag,
      summary: 'Set the default production of the namespace',
      parameters: [s.namespaceQuery],
      body: { schema: s.object({ production: s.str, namespace: s.str }, ['production']), required: true },
      responses: s.ok('The new default', s.defaultSchema),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const production = requiredString(bodyObject(request), 'production', 'the name of the production to make the default');
      await engine.setDefault(namespace, production);
      return { production };
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'GET',
      url: '/log',
      role: 'viewer',
      spec: true,
      tag,
      summary: 'Event log: the newest `top` entries newest first, or with `since_id` the entries after it, ascending',
      parameters: [
        s.namespaceQuery,
        s.queryParameter('top', `Number of newest entries (default 10, at most ${options.maxTop}); ignored with since_id`, { type: 'integer', minimum: 0 }),
        s.queryParameter('since_id', `Only entries with a greater id, ascending (at most ${options.maxTop} per call)`, { type: 'integer', minimum: 0 }),
      ],
      responses: s.ok('Log entries', s.arrayOf(s.logEntrySchema)),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const sinceId = queryInteger(request, 'since_id');
      const top = Math.min(queryInteger(request, 'top') ?? 10, options.maxTop);
      const entries = sinceId === undefined ? await engine.logTop(namespace, top) : await engine.logSince(namespace, sinceId, options.maxTop);
      return entries.map(logEntryJson);
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'GET',
      url: '/export',
      role: 'viewer',
      spec: true,
      tag,
      summary: 'The definition of a production (default: the last-used one)',
      parameters: [s.namespaceQuery, s.queryParameter('production', 'Production name (default: the default production)')],
      responses: s.ok('Production definition', s.exportSchema),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      return exportJson(await engine.getDefinition(namespace, queryString(request, 'production')));
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'POST',
      url: '/test',
      role: 'operator',
      spec: true,
      tag,
      summary: 'Send a test message synchronously to an item of the running production',
      parameters: [s.namespaceQuery],
      body: { schema: s.testBodySchema, required: true },
      responses: s.ok("The target's response; body cut at 1,000,000 characters. An item that answers nothing gives classname '' and body ''", s.testReplySchema),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const body = bodyObject(request);
      const target = requiredString(body, 'target', 'the config name of the item to call');
      const classname = optionalString(body, 'classname');
      const restart = optionalBoolean(body, 'restart') ?? true;
      const result = await engine.test(namespace, { target, ...(classname ? { classname } : {}), body: testMessageBody(body.body), restart });
      return testReply(result.classname, result.body);
    },
  );
}

/**
 * The test body: a JSON object or a text, default `{}`. A text is passed as is: the engine reads it as
 * JSON for Python classes and as the StringValue of string messages (`-B hello`).
 */
function testMessageBody(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConveyorError('ERR_INVALID_INPUT', `body must be a JSON object or a string, not ${describe(value)}`);
  return value;
}
