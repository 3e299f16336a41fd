/**
 * The routes of the spec's "Routes" table (except `PUT /migrate`, in migrate-route.ts): version,
 * status, lifecycle, list, default production, log, export and test. Their shapes are declared in
 * src/core/contract/spec-routes.ts; requests reach the handlers already checked against them.
 */
import type { FastifyInstance } from 'fastify';
import * as spec from '../core/contract/spec-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import { iopExport } from '../core/iop-export.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { exportJson } from '../core/export-json.ts';
import { listRecord, logEntryJson, testReply } from './engine-json.ts';
import type { ResolvedApiOptions } from './options.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

/** A given text, or undefined for an absent, null or empty one (IoP's "not given"). */
export function given(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : value;
}

export function registerSpecRoutes(root: FastifyInstance, engine: EngineOperations, options: ResolvedApiOptions, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, spec.version, async (request) => {
    // IoP's readiness probe sends ?namespace=…; like every namespace here, it must exist.
    await namespaceOf(request, engine);
    return { version: options.version.version, description: options.version.description };
  });

  serve(scope, catalog, spec.status, async (request) => {
    const { production, status } = await (await namespaceOf(request, engine)).status();
    return { production, status };
  });

  serve(scope, catalog, spec.start, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const production = await namespace.start(given(request.body.production));
    return { status: 'started' as const, production };
  });

  serve(scope, catalog, spec.stop, async (request) => {
    await (await namespaceOf(request, engine)).stop();
    return { status: 'stopped' as const };
  });
  serve(scope, catalog, spec.kill, async (request) => {
    await (await namespaceOf(request, engine)).kill();
    return { status: 'killed' as const };
  });
  serve(scope, catalog, spec.restart, async (request) => {
    await (await namespaceOf(request, engine)).restart();
    return { status: 'restarted' as const };
  });
  serve(scope, catalog, spec.update, async (request) => {
    await (await namespaceOf(request, engine)).update();
    return { status: 'updated' as const };
  });

  serve(scope, catalog, spec.list, async (request) => {
    const summaries = await (await namespaceOf(request, engine)).list();
    return Object.fromEntries(Object.entries(summaries).map(([name, summary]) => [name, listRecord(summary)]));
  });

  serve(scope, catalog, spec.getDefault, async (request) => ({ production: await (await namespaceOf(request, engine)).getDefault() }));

  serve(scope, catalog, spec.setDefault, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const production = given(request.body.production);
    if (production === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'production is required: the name of the production to make the default');
    await namespace.setDefault(production);
    return { production };
  });

  serve(scope, catalog, spec.log, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const sinceId = request.query.since_id;
    const top = Math.min(request.query.top ?? 10, options.maxTop);
    const entries = sinceId === undefined ? await namespace.log.top(top) : await namespace.log.since(sinceId, options.maxTop);
    return entries.map(logEntryJson);
  });

  serve(scope, catalog, spec.exportProduction, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const definition = await namespace.getDefinition(given(request.query.production));
    return options.exportFormat === 'iop' ? iopExport(definition) : exportJson(definition);
  });

  serve(scope, catalog, spec.test, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { target, classname, body, restart, timeout } = request.body;
    if (target === '') throw new ConveyorError('ERR_INVALID_INPUT', 'target is required: the config name of the item to call');
    const chosenClass = given(classname);
    // The body: a JSON object or a text, default `{}`. A text is passed as is: the engine reads it as
    // JSON for Python classes and as the StringValue of string messages (`-B hello`).
    const message = body === undefined || body === null || body === '' ? {} : body;
    const result = await namespace.test({
      target,
      ...(chosenClass ? { classname: chosenClass } : {}),
      body: message,
      restart: restart ?? true,
      ...(typeof timeout === 'number' ? { timeoutMs: timeout * 1000 } : {}),
    });
    return testReply(result.classname, result.body);
  });
}
