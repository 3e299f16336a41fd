/**
 * Reading a production definition sent in the export shape (what `GET /export` gives), the way the
 * portal saves edited settings. Every field is checked with a message naming the item and field; an
 * item's category, which the export shape does not carry, is kept from the stored definition.
 */
import { ConveyorError } from '../core/errors.ts';
import {
  productionSettingsOf,
  withProductionSettings,
  type ItemDefinition,
  type ItemSetting,
  type ProductionDefinition,
  type ProductionSetting,
} from '../core/production.ts';
import { scheduleProblem } from '../core/schedule-spec.ts';
import { describe } from './request-input.ts';

type Json = Record<string, unknown>;

function fail(where: string, message: string): never {
  throw new ConveyorError('ERR_INVALID_INPUT', `${where}: ${message}`);
}

function asObject(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, `must be an object, not ${describe(value)}`);
  return value as Json;
}

function text(object: Json, field: string, where: string, fallback?: string): string {
  const value = object[field];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string') fail(where, `${field} must be a string, not ${describe(value)}`);
  return value;
}

/** An IRIS schedule (src/core/schedule-spec.ts): a mistyped one is refused, not stored to be ignored. */
function checkSchedule(value: string, where: string): string {
  const problem = scheduleProblem(value);
  if (problem) fail(where, `schedule ${JSON.stringify(value)} is not an IRIS schedule: ${problem} (e.g. START:*-*-*T08:00:00,STOP:*-*-*T17:00:00, or @Name)`);
  return value;
}

function schedule(object: Json, where: string): string {
  return checkSchedule(text(object, 'schedule', where, ''), where);
}

/** The same check on a definition read from another form (IoP's export, sent to validate, plan or apply). */
export function checkSchedules(definition: ProductionDefinition): ProductionDefinition {
  for (const item of definition.items) checkSchedule(item.schedule, `item ${item.name}`);
  return definition;
}

function flag(object: Json, field: string, where: string, fallback: boolean): boolean {
  const value = object[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(where, `${field} must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

function count(object: Json, field: string, where: string, fallback: number, min: number): number {
  const value = object[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    fail(where, `${field} must be an integer of at least ${min}, not ${JSON.stringify(value)}`);
  return value;
}

function settingsOf(object: Json, where: string): ItemSetting[] {
  const list = object.settings ?? [];
  if (!Array.isArray(list)) fail(where, `settings must be an array, not ${describe(list)}`);
  return list.map((entry, index) => {
    const at = `${where} setting ${index + 1}`;
    const setting = asObject(entry, at);
    const target = text(setting, 'target', at, 'Host');
    if (target !== 'Host' && target !== 'Adapter') fail(at, `target must be Host or Adapter, not ${JSON.stringify(target)}`);
    const name = text(setting, 'name', at);
    if (name.trim() === '') fail(at, 'name must not be empty');
    return { target, name, value: text(setting, 'value', at, '') };
  });
}

/** Production-level settings; absent keeps the stored ones (an editor that does not show them loses none). */
function productionSettingsFrom(root: Json, existing: ProductionDefinition | null): ProductionSetting[] {
  if (root.settings === undefined) return existing === null ? [] : productionSettingsOf(existing);
  if (!Array.isArray(root.settings)) fail('definition', `settings must be an array, not ${describe(root.settings)}`);
  const seen = new Set<string>();
  return root.settings.map((entry, index) => {
    const at = `definition setting ${index + 1}`;
    const setting = asObject(entry, at);
    const name = text(setting, 'name', at);
    if (name.trim() === '') fail(at, 'name must not be empty');
    if (seen.has(name)) fail(at, `the setting ${name} is given twice`);
    seen.add(name);
    return { name, value: text(setting, 'value', at, '') };
  });
}

export function definitionFromJson(value: unknown, existing: ProductionDefinition | null): ProductionDefinition {
  const root = asObject(value, 'definition');
  const name = text(root, 'name', 'definition');
  if (name.trim() === '') fail('definition', 'name must not be empty');
  const list = root.items ?? [];
  if (!Array.isArray(list)) fail(`production ${name}`, `items must be an array, not ${describe(list)}`);
  const seen = new Set<string>();
  const items: ItemDefinition[] = list.map((entry, index) => {
    const raw = asObject(entry, `production ${name} item ${index + 1}`);
    const itemName = text(raw, 'name', `production ${name} item ${index + 1}`);
    const where = `item ${itemName}`;
    if (itemName.trim() === '') fail(`production ${name} item ${index + 1}`, 'name must not be empty');
    if (seen.has(itemName)) fail(where, 'two items have this name; config names must be unique');
    seen.add(itemName);
    const classname = text(raw, 'classname', where);
    if (classname.trim() === '') fail(where, 'classname must not be empty');
    return {
      name: itemName,
      classname,
      category: existing?.items.find((item) => item.name === itemName)?.category ?? '',
      poolSize: count(raw, 'pool_size', where, 1, 0),
      enabled: flag(raw, 'enabled', where, true),
      foreground: flag(raw, 'foreground', where, false),
      comment: text(raw, 'comment', where, ''),
      logTraceEvents: flag(raw, 'log_trace_events', where, false),
      schedule: schedule(raw, where),
      settings: settingsOf(raw, where),
    };
  });
  return {
    name,
    description: text(root, 'description', 'definition', ''),
    testingEnabled: flag(root, 'test_enabled', 'definition', true),
    logGeneralTraceEvents: flag(root, 'log_trace_events', 'definition', false),
    actorPoolSize: count(root, 'actor_pool_size', 'definition', 2, 0),
    items,
    ...withProductionSettings(productionSettingsFrom(root, existing)),
  };
}
