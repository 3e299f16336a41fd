/**
 * A production definition in IoP's own export form: the production XML as `xmltodict.parse` reads it,
 * keyed by the production's name (`{"<Name>": {"@Name": …, "Item": …}}`, iop-reference §3.8). IoP's
 * servers answer `GET /export` so, and the 4.x client's `Production.from_iris` reads it; Conveyor's
 * server does too with `exportFormat: iop`. The conventions are xmltodict's: every value a string,
 * attributes as `@Name`, a repeated element as an array, a single one as an object, an absent one absent.
 * The reverse reading (`definitionFromIopExport`) accepts either form of a repeated element, and the
 * `{"Production": …}` key of the spec's CLI export.
 */
import { ConveyorError } from './errors.ts';
import {
  productionSettingsOf,
  withProductionSettings,
  type ItemDefinition,
  type ItemSetting,
  type ProductionDefinition,
  type ProductionSetting,
} from './production.ts';

export interface IopSetting {
  '@Target': string;
  '@Name': string;
  '#text': string;
}

export interface IopItem {
  '@Name': string;
  '@Category': string;
  '@ClassName': string;
  '@PoolSize': string;
  '@Enabled': string;
  '@Foreground': string;
  '@Comment': string;
  '@LogTraceEvents': string;
  '@Schedule': string;
  Setting?: IopSetting | IopSetting[];
}

/** A production-level setting as IoP 4 writes it (no `@Target`; IRIS may write `Target="Production"`). */
export interface IopProductionSetting {
  '@Name': string;
  '#text': string;
}

export interface IopProduction {
  '@Name': string;
  '@TestingEnabled': string;
  '@LogGeneralTraceEvents': string;
  Description: string;
  ActorPoolSize: string;
  Setting?: IopProductionSetting | IopProductionSetting[];
  Item?: IopItem | IopItem[];
}

/** One element, several, or none: how xmltodict renders repeated children. */
function repeated<T>(list: T[]): T | T[] | undefined {
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : list;
}

function iopItem(item: ItemDefinition): IopItem {
  const settings = repeated(item.settings.map(({ target, name, value }) => ({ '@Target': target, '@Name': name, '#text': value })));
  return {
    '@Name': item.name,
    '@Category': item.category,
    '@ClassName': item.classname,
    '@PoolSize': String(item.poolSize),
    '@Enabled': String(item.enabled),
    '@Foreground': String(item.foreground),
    '@Comment': item.comment,
    '@LogTraceEvents': String(item.logTraceEvents),
    '@Schedule': item.schedule,
    ...(settings === undefined ? {} : { Setting: settings }),
  };
}

export function iopExport(definition: ProductionDefinition): Record<string, IopProduction> {
  const items = repeated(definition.items.map(iopItem));
  const settings = repeated(productionSettingsOf(definition).map(({ name, value }) => ({ '@Name': name, '#text': value })));
  return {
    [definition.name]: {
      '@Name': definition.name,
      '@TestingEnabled': String(definition.testingEnabled),
      '@LogGeneralTraceEvents': String(definition.logGeneralTraceEvents),
      Description: definition.description,
      ActorPoolSize: String(definition.actorPoolSize),
      ...(settings === undefined ? {} : { Setting: settings }),
      ...(items === undefined ? {} : { Item: items }),
    },
  };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(where: string, message: string): never {
  throw new ConveyorError('ERR_INVALID_INPUT', `${where}: ${message}`);
}

function listOf(value: unknown, where: string): Json[] {
  if (value === undefined || value === '' || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry, index) => (isObject(entry) ? entry : fail(`${where} ${index + 1}`, 'must be an object')));
}

function textOf(object: Json, key: string, where: string, fallback = ''): string {
  const value = object[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fail(where, `${key} must be a string`);
}

/** IoP writes booleans as `true`/`false` (IRIS may write 1/0). */
function flagOf(object: Json, key: string, where: string, fallback: boolean): boolean {
  const value = textOf(object, key, where).toLowerCase();
  if (value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return fail(where, `${key} must be true or false, not ${JSON.stringify(value)}`);
}

function countOf(object: Json, key: string, where: string, fallback: number): number {
  const value = textOf(object, key, where, String(fallback));
  if (value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) fail(where, `${key} must be a whole number, not ${JSON.stringify(value)}`);
  return number;
}

function settingOf(raw: Json, where: string): ItemSetting {
  const target = textOf(raw, '@Target', where, 'Host');
  if (target !== 'Host' && target !== 'Adapter') fail(where, `@Target must be Host or Adapter, not ${JSON.stringify(target)}`);
  const name = textOf(raw, '@Name', where);
  if (name.trim() === '') fail(where, '@Name must not be empty');
  return { target, name, value: textOf(raw, '#text', where) };
}

/** Production-level settings: `@Target` absent or `Production`; a name given twice is refused (one value each). */
function productionSettingsFrom(value: unknown, where: string): ProductionSetting[] {
  const seen = new Set<string>();
  return listOf(value, `${where} setting`).map((raw, index) => {
    const at = `${where} setting ${index + 1}`;
    const target = textOf(raw, '@Target', at, 'Production');
    if (target !== 'Production' && target !== '') fail(at, `@Target of a production-level setting must be Production or absent, not ${JSON.stringify(target)}`);
    const name = textOf(raw, '@Name', at);
    if (name.trim() === '') fail(at, '@Name must not be empty');
    if (seen.has(name)) fail(at, `the setting ${name} is given twice`);
    seen.add(name);
    return { name, value: textOf(raw, '#text', at) };
  });
}

/** True when a value is a production in IoP's export form (`{"<Name>": {"@Name": …}}` or `{"Production": …}`). */
export function isIopExport(value: unknown): value is Record<string, Json> {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && isObject(value[keys[0] as string]) && '@Name' in (value[keys[0] as string] as Json);
}

export function definitionFromIopExport(value: Readonly<Record<string, object>>): ProductionDefinition {
  const [key, production] = Object.entries(value)[0] as [string, Json];
  const name = textOf(production, '@Name', 'definition') || key;
  const where = `production ${name}`;
  const seen = new Set<string>();
  const items = listOf(production['Item'], `${where} item`).map((raw, index): ItemDefinition => {
    const itemName = textOf(raw, '@Name', `${where} item ${index + 1}`);
    if (itemName.trim() === '') fail(`${where} item ${index + 1}`, '@Name must not be empty');
    const at = `item ${itemName}`;
    if (seen.has(itemName)) fail(at, 'two items have this name; config names must be unique');
    seen.add(itemName);
    const classname = textOf(raw, '@ClassName', at);
    if (classname.trim() === '') fail(at, '@ClassName must not be empty');
    return {
      name: itemName,
      classname,
      category: textOf(raw, '@Category', at),
      poolSize: countOf(raw, '@PoolSize', at, 1),
      enabled: flagOf(raw, '@Enabled', at, true),
      foreground: flagOf(raw, '@Foreground', at, false),
      comment: textOf(raw, '@Comment', at),
      logTraceEvents: flagOf(raw, '@LogTraceEvents', at, false),
      schedule: textOf(raw, '@Schedule', at),
      settings: listOf(raw['Setting'], `${at} setting`).map((setting, n) => settingOf(setting, `${at} setting ${n + 1}`)),
    };
  });
  return {
    name,
    description: textOf(production, 'Description', where),
    testingEnabled: flagOf(production, '@TestingEnabled', where, false),
    logGeneralTraceEvents: flagOf(production, '@LogGeneralTraceEvents', where, false),
    actorPoolSize: countOf(production, 'ActorPoolSize', where, 2),
    items,
    ...withProductionSettings(productionSettingsFrom(production['Setting'], where)),
  };
}
