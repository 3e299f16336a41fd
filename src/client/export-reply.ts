/**
 * `GET /export` answers in one of two forms: the spec's structured definition, or IoP's xmltodict form
 * (IoP's servers, and Conveyor's with `exportFormat: iop`). The client reads both into the structured
 * one, so `cli -e` prints the spec's CLI export whichever server it talks to.
 */
import { definitionFromIopExport, isIopExport } from '../core/iop-export.ts';
import type { ExportedProduction } from './replies.ts';

export function exportedProduction(reply: unknown): ExportedProduction {
  if (!isIopExport(reply)) return reply as ExportedProduction;
  const definition = definitionFromIopExport(reply);
  return {
    name: definition.name,
    description: definition.description,
    test_enabled: definition.testingEnabled,
    log_trace_events: definition.logGeneralTraceEvents,
    actor_pool_size: definition.actorPoolSize,
    items: definition.items.map((item) => ({
      name: item.name,
      category: item.category,
      classname: item.classname,
      pool_size: item.poolSize,
      enabled: item.enabled,
      foreground: item.foreground,
      comment: item.comment,
      log_trace_events: item.logTraceEvents,
      schedule: item.schedule,
      settings: item.settings,
    })),
    ...(definition.settings === undefined ? {} : { settings: definition.settings }),
  };
}
