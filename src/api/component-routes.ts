/**
 * Beyond the spec, in the shapes of IoP 4 (iop-reference §3.9): start, stop and restart one item of the
 * running production, the queue and connection views of a production, and the class bindings (list,
 * unbind). Failures answer with the
 * status of their error code (404 unknown item, 409 not running, …) and `{error}`.
 */
import type { FastifyInstance } from 'fastify';
import type { ClassBinding, ComponentKind } from '../core/components.ts';
import { configuredConnections } from '../core/configured-connections.ts';
import * as contract from '../core/contract/component-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import type { EngineOperations, NamespaceOperations } from '../engine/namespace-operations.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { given } from './spec-routes.ts';

/** The IoP base class a proxy of each kind extends (what IoP's GET /bindings reports as `super`). */
const iopBase: Record<ComponentKind, string> = {
  service: 'IOP.BusinessService',
  process: 'IOP.BusinessProcess',
  operation: 'IOP.BusinessOperation',
  inbound_adapter: 'IOP.InboundAdapter',
  outbound_adapter: 'IOP.OutboundAdapter',
};

function kindOf(binding: ClassBinding | undefined): 'service' | 'process' | 'operation' | 'component' {
  const kind = binding?.kind;
  return kind === 'service' || kind === 'process' || kind === 'operation' ? kind : 'component';
}

export function registerComponentRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);
  const actions = [
    { declaration: contract.componentStart, status: 'started', run: (ns: NamespaceOperations, item: string) => ns.components.start(item) },
    { declaration: contract.componentStop, status: 'stopped', run: (ns: NamespaceOperations, item: string) => ns.components.stop(item) },
    { declaration: contract.componentRestart, status: 'restarted', run: (ns: NamespaceOperations, item: string) => ns.components.restart(item) },
  ] as const;
  for (const { declaration, status, run } of actions) {
    serve(scope, catalog, declaration, async (request) => {
      const namespace = await namespaceOf(request, engine);
      const component = given(request.body.component) ?? given(request.body.item);
      if (component === undefined)
        throw new ConveyorError('ERR_INVALID_INPUT', 'component is required: the config name of the item (item is accepted as an alias)');
      await run(namespace, component);
      return { status, component };
    });
  }

  serve(scope, catalog, contract.serviceInput, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { service, classname, body } = request.body;
    if (service === '') throw new ConveyorError('ERR_INVALID_INPUT', 'service is required: the config name of the business service');
    const chosenClass = given(classname);
    const input = body === undefined || body === null || body === '' ? {} : body;
    const result = await namespace.processInput({ service, ...(chosenClass ? { classname: chosenClass } : {}), body: input });
    return { classname: result.classname, body: result.body, session_id: result.sessionId };
  });

  serve(scope, catalog, contract.queues, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const definition = await namespace.getDefinition(given(request.query.production));
    const [depths, status] = await Promise.all([namespace.queues(), namespace.status()]);
    const running = status.status === 'running' && status.production === definition.name;
    const byTarget = new Map(depths.map((depth) => [depth.target, depth]));
    const items = definition.items.map((item) => {
      const depth = byTarget.get(item.name);
      return {
        item: item.name,
        queue_name: item.name,
        class_name: item.classname,
        exists: depth !== undefined || (running && item.enabled) ? (1 as const) : (0 as const),
        count: depth?.queued ?? 0,
      };
    });
    return { production: definition.name, items, warnings: [] };
  });

  serve(scope, catalog, contract.bindings, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const unusedOnly = ['1', 'true', 'yes', 'on'].includes((request.query.unused ?? '').toLowerCase());
    const classes = (await namespace.classes()).filter((binding) => binding.runtime === 'python');
    const usedBy = new Map<string, Array<{ production: string; item: string }>>();
    for (const production of Object.keys(await namespace.list())) {
      for (const item of (await namespace.getDefinition(production)).items) {
        usedBy.set(item.classname, [...(usedBy.get(item.classname) ?? []), { production, item: item.name }]);
      }
    }
    return classes
      .map((binding) => {
        const uses = usedBy.get(binding.name) ?? [];
        return {
          class: binding.name,
          super: iopBase[binding.kind],
          module: binding.module ?? '',
          classname: binding.className ?? '',
          classpaths: binding.classpaths.join('|'),
          used: uses.length > 0 ? (1 as const) : (0 as const),
          used_by: uses,
        };
      })
      .filter((entry) => !unusedOnly || entry.used === 0)
      .sort((a, b) => (a.class < b.class ? -1 : a.class > b.class ? 1 : 0));
  });

  serve(scope, catalog, contract.unbind, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const name = given(request.query.class) ?? given(request.query.classname);
    if (name === undefined)
      throw new ConveyorError('ERR_INVALID_INPUT', 'class is required: the registered class name to unbind (classname is accepted as an alias)');
    await namespace.unbindClass(name);
    return { status: 'unbound' as const, class: name };
  });

  serve(scope, catalog, contract.connections, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const definition = await namespace.getDefinition(given(request.query.production));
    const [status, bindings] = await Promise.all([namespace.status(), namespace.classes()]);
    // The flows seen at run time belong to the running (or default) production: only when it is this one.
    const seen = status.production === definition.name ? await namespace.connections() : [];
    const edges = [...configuredConnections(definition, bindings), ...seen];
    const bindingByName = new Map(bindings.map((binding) => [binding.name, binding]));
    const itemNames = new Set(definition.items.map((item) => item.name));
    const warnings: string[] = [];
    const items = definition.items.map((item) => {
      const binding = bindingByName.get(item.classname);
      const targets = [...new Set(edges.filter((edge) => edge.from === item.name).map((edge) => edge.to))];
      const itemWarnings = targets
        .filter((target) => !itemNames.has(target))
        .map((target) => `${item.name} sends to ${target}, which is not an item of ${definition.name}`);
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
  });
}
