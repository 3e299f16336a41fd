/**
 * Beyond the spec, in the shapes of IoP 4 (iop-reference §3.9): start, stop and restart one item of the
 * running production, and the queue and connection views of a production. Failures answer with the
 * status of their error code (404 unknown item, 409 not running, …) and `{error}`.
 */
import type { FastifyInstance } from 'fastify';
import type { ClassBinding } from '../core/components.ts';
import { ConveyorError } from '../core/errors.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import { bodyObject, optionalString, queryString, requestNamespace } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

const tag = 'Components';

const componentActions = [
  { action: 'start', status: 'started', summary: 'Enable and start one item of the running production' },
  { action: 'stop', status: 'stopped', summary: 'Stop and disable one item of the running production' },
  { action: 'restart', status: 'restarted', summary: 'Restart one item (its Python code is re-imported)' },
] as const;

function kindOf(binding: ClassBinding | undefined): 'service' | 'process' | 'operation' | 'component' {
  const kind = binding?.kind;
  return kind === 'service' || kind === 'process' || kind === 'operation' ? kind : 'component';
}

export function registerComponentRoutes(scope: FastifyInstance, engine: EngineApi, catalog: RouteCatalog | null): void {
  for (const { action, status, summary } of componentActions) {
    addRoute(
      scope,
      catalog,
      {
        method: 'POST',
        url: `/component/${action}`,
        role: 'operator',
        spec: false,
        tag,
        summary,
        parameters: [s.namespaceQuery],
        body: { schema: s.componentBodySchema, required: true, description: '`component` (alias `item`): the config name of the item' },
        responses: { ...s.ok(summary, s.componentReplySchema(status)), 404: { description: 'No such item', schema: s.errorSchema }, 409: { description: 'The production is not running', schema: s.errorSchema } },
      },
      async (request) => {
        const namespace = await requestNamespace(request, engine);
        const body = bodyObject(request);
        const component = optionalString(body, 'component') ?? optionalString(body, 'item');
        if (component === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'component is required: the config name of the item (item is accepted as an alias)');
        if (action === 'start') await engine.componentStart(namespace, component);
        else if (action === 'stop') await engine.componentStop(namespace, component);
        else await engine.componentRestart(namespace, component);
        return { status, component };
      },
    );
  }

  const productionQuery = s.queryParameter('production', 'Production name (default: the default production)');

  addRoute(
    scope,
    catalog,
    { method: 'GET', url: '/queues', role: 'viewer', spec: false, tag, summary: 'Queue depth of each item of a production', parameters: [s.namespaceQuery, productionQuery], responses: s.ok('Queues', s.queuesSchema) },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const definition = await engine.getDefinition(namespace, queryString(request, 'production'));
      const [depths, status] = await Promise.all([engine.queues(namespace), engine.status(namespace)]);
      const running = status.status === 'running' && status.production === definition.name;
      const byTarget = new Map(depths.map((depth) => [depth.target, depth]));
      const items = definition.items.map((item) => {
        const depth = byTarget.get(item.name);
        return {
          item: item.name,
          queue_name: item.name,
          class_name: item.classname,
          exists: depth !== undefined || (running && item.enabled) ? 1 : 0,
          count: depth?.queued ?? 0,
        };
      });
      return { production: definition.name, items, warnings: [] };
    },
  );

  addRoute(
    scope,
    catalog,
    {
      method: 'GET',
      url: '/connections',
      role: 'viewer',
      spec: false,
      tag,
      summary: 'Each item of a production, its class and the items it sends to',
      parameters: [s.namespaceQuery, productionQuery],
      responses: s.ok('Connections', s.connectionsSchema),
    },
    async (request) => {
      const namespace = await requestNamespace(request, engine);
      const definition = await engine.getDefinition(namespace, queryString(request, 'production'));
      const [edges, bindings] = await Promise.all([engine.connections(namespace), engine.classes(namespace)]);
      const bindingByName = new Map(bindings.map((binding) => [binding.name, binding]));
      const itemNames = new Set(definition.items.map((item) => item.name));
      const warnings: string[] = [];
      const items = definition.items.map((item) => {
        const binding = bindingByName.get(item.classname);
        const targets = [...new Set(edges.filter((edge) => edge.from === item.name).map((edge) => edge.to))];
        const itemWarnings = targets.filter((target) => !itemNames.has(target)).map((target) => `${item.name} sends to ${target}, which is not an item of ${definition.name}`);
        if (!binding) itemWarnings.push(`The class ${item.classname} is not registered in the namespace`);
        warnings.push(...itemWarnings);
        return {
          item: item.name,
          class_name: item.classname,
          kind: kindOf(binding),
          ...(binding?.adapterType ? { adapter_class_name: binding.adapterType } : {}),
          ...(binding?.runtime === 'python'
            ? { iop: 1 as const, module: binding.module ?? '', classname: binding.className ?? '', classpaths: binding.classpaths.join('|') }
            : {}),
          connections: targets,
          warnings: itemWarnings,
        };
      });
      return { production: definition.name, items, warnings };
    },
  );
}
