/**
 * The routes of the spec's "Routes" table (except `PUT /migrate`, in migrate-route.ts): version,
 * status, lifecycle, list, default production, log, export and test. Their shapes are declared in
 * src/core/contract/spec-routes.ts; requests reach the handlers already checked against them.
 */
import type { FastifyInstance } from 'fastify';
import * as spec from '../core/contract/spec-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import { exportJson, listRecord, logEntryJson, testReply } from './engine-json.ts';
import type { ResolvedApiOptions } from './options.ts';
import { requestNamespace } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

/** A given text, or undefined for an absent, null or empty one (IoP's "not given"). */
export function given(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : value;
}

export function registerSpecRoutes(root: FastifyInstance, engine: EngineApi, options: ResolvedApiOptions, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, spec.version, async () => ({ version: options.version.version, description: options.version.description }));

  serve(scope, catalog, spec.status, async (request) => {
    const { production, status } = await engine.status(await requestNamespace(request, engine));
    return { production, status };
  });

  serve(scope, catalog, spec.start, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const production = await engine.start(namespace, given(request.body.production));
    return { status: 'started' as const, production };
  });

  serve(scope, catalog, spec.stop, async (request) => {
    await engine.stop(await requestNamespace(request, engine));
    return { status: 'stopped' as const };
  });
  serve(scope, catalog, spec.kill, async (request) => {
    await engine.kill(await requestNamespace(request, engine));
    return { status: 'killed' as const };
  });
  serve(scope, catalog, spec.restart, async (request) => {
    await engine.restart(await requestNamespace(request, engine));
    return { status: 'restarted' as const };
  });
  serve(scope, catalog, spec.update, async (request) => {
    await engine.update(await requestNamespace(request, engine));
    return { status: 'updated' as const };
  });

  serve(scope, catalog, spec.list, async (request) => {
    const summaries = await engine.list(await requestNamespace(request, engine));
    return Object.fromEntries(Object.entries(summaries).map(([name, summary]) => [name, listRecord(summary)]));
  });

  serve(scope, catalog, spec.getDefault, async (request) => ({ production: await engine.getDefault(await requestNamespace(request, engine)) }));

  serve(scope, catalog, spec.setDefault, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const production = given(request.body.production);
    if (production === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'production is required: the name of the production to make the default');
    await engine.setDefault(namespace, production);
    return { production };
  });

  serve(scope, catalog, spec.log, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const sinceId = request.query.since_id;
    const top = Math.min(request.query.top ?? 10, options.maxTop);
    const entries = sinceId === undefined ? await engine.logTop(namespace, top) : await engine.logSince(namespace, sinceId, options.maxTop);
    return entries.map(logEntryJson);
  });

  serve(scope, catalog, spec.exportProduction, async (request) => {
    const namespace = await requestNamespace(request, engine);
    return exportJson(await engine.getDefinition(namespace, given(request.query.production)));
  });

  serve(scope, catalog, spec.test, async (request) => {
    const namespace = await requestNamespace(request, engine);
    const { target, classname, body, restart, timeout } = request.body;
    if (target === '') throw new ConveyorError('ERR_INVALID_INPUT', 'target is required: the config name of the item to call');
    const chosenClass = given(classname);
    // The body: a JSON object or a text, default `{}`. A text is passed as is: the engine reads it as
    // JSON for Python classes and as the StringValue of string messages (`-B hello`).
    const message = body === undefined || body === null || body === '' ? {} : body;
    const result = await engine.test(namespace, {
      target,
      ...(chosenClass ? { classname: chosenClass } : {}),
      body: message,
      restart: restart ?? true,
      ...(typeof timeout === 'number' ? { timeoutMs: timeout * 1000 } : {}),
    });
    return testReply(result.classname, result.body);
  });
}
