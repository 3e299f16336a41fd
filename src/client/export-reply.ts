/**
 * `GET /export` answers in one of two forms: the spec's structured definition, or IoP's xmltodict form
 * (IoP's servers, and Conveyor's with `exportFormat: iop`). The client reads both into the structured
 * one, so `cli -e` prints the spec's CLI export whichever server it talks to.
 */
import { exportJson } from '../core/export-json.ts';
import { definitionFromIopExport, isIopExport } from '../core/iop-export.ts';
import type { ExportedProduction } from './replies.ts';

export function exportedProduction(reply: unknown): ExportedProduction {
  if (!isIopExport(reply)) return reply as ExportedProduction;
  const definition = definitionFromIopExport(reply);
  const json = exportJson(definition);
  // IoP's form carries each item's category; keep it for the CLI export's `@Category`.
  return { ...json, items: json.items.map((item, index) => ({ ...item, category: definition.items[index]?.category ?? '' })) };
}
