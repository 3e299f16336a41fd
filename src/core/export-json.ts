/**
 * A production definition as the spec's `GET /export` JSON (architecture §8: real booleans and
 * integers). The server answers with it; the client builds the same shape from IoP's xmltodict form.
 */
import type { ExportJson } from './contract/production-shapes.ts';
import { productionSettingsOf, type ProductionDefinition } from './production.ts';

export function exportJson(definition: ProductionDefinition): ExportJson {
  const settings = productionSettingsOf(definition);
  return {
    name: definition.name,
    description: definition.description,
    test_enabled: definition.testingEnabled,
    log_trace_events: definition.logGeneralTraceEvents,
    actor_pool_size: definition.actorPoolSize,
    items: definition.items.map((item) => ({
      name: item.name,
      classname: item.classname,
      pool_size: item.poolSize,
      enabled: item.enabled,
      foreground: item.foreground,
      comment: item.comment,
      log_trace_events: item.logTraceEvents,
      schedule: item.schedule,
      settings: item.settings.map(({ target, name, value }) => ({ target, name, value })),
    })),
    // Absent when the production has no production-level settings.
    ...(settings.length === 0 ? {} : { settings: settings.map(({ name, value }) => ({ name, value })) }),
  };
}
