/**
 * What changes between a stored production definition and a desired one, in IoP 4's terms
 * (iop4-reference §4.7, §4.8): the diff entries (production fields, removed and added items, item
 * fields, Host/Adapter settings, routes), then the change plan whose operations say which changes are
 * safe and which destructive (a deletion, a removed setting or route, a class replaced). Routes are the
 * item's `TargetConfigName(s)` Host settings, compared as sorted target lists.
 * Pure (no `node:` imports): the portal shows the same plan the server applies.
 */
import { productionSettingsOf, withProductionSettings, type ItemDefinition, type ProductionDefinition } from './production.ts';

export type ChangeAction = 'add' | 'remove' | 'change';
export type ChangeKind = 'production' | 'item' | 'setting' | 'connection';

export interface DefinitionChange {
  action: ChangeAction;
  kind: ChangeKind;
  /** `production.<field>`, `items.<I>`, `items.<I>.<field>`, `items.<I>.settings.Host|Adapter.<S>`, `connections.<I>.<S>`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

export type OperationType =
  | 'add_item'
  | 'delete_item'
  | 'replace_item_class'
  | 'set_item_field'
  | 'set_setting'
  | 'remove_setting'
  | 'set_route_setting'
  | 'remove_route'
  | 'set_production_field';

export interface PlanOperation extends DefinitionChange {
  /** `NNNN-<op_type>`, numbered from 1 in plan order. */
  id: string;
  op_type: OperationType;
  risk: 'safe' | 'destructive';
  allowed_by_default: boolean;
  reason?: string;
}

/** Host settings whose value names the items an item sends to. */
export const routeSettings = new Set(['TargetConfigName', 'TargetConfigNames']);

const productionFields = [
  ['description', (d: ProductionDefinition) => d.description],
  ['testing_enabled', (d: ProductionDefinition) => d.testingEnabled],
  ['log_general_trace_events', (d: ProductionDefinition) => d.logGeneralTraceEvents],
  ['actor_pool_size', (d: ProductionDefinition) => d.actorPoolSize],
] as const;

/** IoP 4's production-level fields: IRIS setting name → (DSL field, default text when the setting is absent). */
const productionSettingFields = new Map([
  ['ShutdownTimeout', ['shutdown_timeout', '120']],
  ['UpdateTimeout', ['update_timeout', '10']],
  ['AlertNotificationManager', ['alert_notification_manager', '']],
  ['AlertNotificationOperation', ['alert_notification_operation', '']],
  ['AlertNotificationRecipients', ['alert_notification_recipients', '']],
  ['AlertActionWindow', ['alert_action_window', '60']],
]);

/**
 * Changes of production-level settings as IoP 4 names them: `production.<field>` with the default standing
 * in for an absent known setting; a name IoP does not model is `production.Setting.<Name>`.
 */
function productionSettingChanges(current: ProductionDefinition, desired: ProductionDefinition): DefinitionChange[] {
  const was = new Map(productionSettingsOf(current).map(({ name, value }) => [name, value]));
  const now = new Map(productionSettingsOf(desired).map(({ name, value }) => [name, value]));
  const changes: DefinitionChange[] = [];
  for (const name of new Set([...productionSettingFields.keys(), ...was.keys(), ...now.keys()])) {
    const known = productionSettingFields.get(name);
    const before = was.get(name) ?? known?.[1];
    const after = now.get(name) ?? known?.[1];
    if (before === after) continue;
    const path = known === undefined ? `production.Setting.${name}` : `production.${known[0]}`;
    changes.push({ action: 'change', kind: 'production', path, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
  }
  return changes;
}

const itemFields = [
  ['class_name', (i: ItemDefinition) => i.classname],
  ['category', (i: ItemDefinition) => i.category],
  ['pool_size', (i: ItemDefinition) => i.poolSize],
  ['enabled', (i: ItemDefinition) => i.enabled],
  ['foreground', (i: ItemDefinition) => i.foreground],
  ['comment', (i: ItemDefinition) => i.comment],
  ['log_trace_events', (i: ItemDefinition) => i.logTraceEvents],
  ['schedule', (i: ItemDefinition) => i.schedule],
] as const;

/** An item's settings other than routes, keyed `Host.<name>` / `Adapter.<name>`. */
function plainSettings(item: ItemDefinition): Map<string, string> {
  const settings = new Map<string, string>();
  for (const { target, name, value } of item.settings) if (!(target === 'Host' && routeSettings.has(name))) settings.set(`${target}.${name}`, value);
  return settings;
}

/** The route settings of an item: setting name → sorted target names. */
export function routesOf(item: ItemDefinition): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  for (const { target, name, value } of item.settings) {
    if (target !== 'Host' || !routeSettings.has(name)) continue;
    const targets = value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    routes.set(name, [...new Set(targets)].sort());
  }
  return routes;
}

function signature(item: ItemDefinition): Record<string, unknown> {
  return {
    ...Object.fromEntries(itemFields.map(([field, read]) => [field, read(item)])),
    settings: Object.fromEntries(plainSettings(item)),
    routes: Object.fromEntries(routesOf(item)),
  };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The changes that turn `current` (the stored definition, or none) into `desired`. */
export function diffDefinitions(current: ProductionDefinition | null, desired: ProductionDefinition): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  if (current) {
    for (const [field, read] of productionFields) {
      if (read(current) !== read(desired))
        changes.push({ action: 'change', kind: 'production', path: `production.${field}`, before: read(current), after: read(desired) });
    }
    changes.push(...productionSettingChanges(current, desired));
  }
  const before = new Map((current?.items ?? []).map((item) => [item.name, item]));
  const after = new Map(desired.items.map((item) => [item.name, item]));
  for (const [name, item] of before) if (!after.has(name)) changes.push({ action: 'remove', kind: 'item', path: `items.${name}`, before: signature(item) });
  for (const [name, item] of after) if (!before.has(name)) changes.push({ action: 'add', kind: 'item', path: `items.${name}`, after: signature(item) });
  const kept = [...after.keys()].filter((name) => before.has(name));
  for (const name of kept) {
    const was = before.get(name) as ItemDefinition;
    const now = after.get(name) as ItemDefinition;
    for (const [field, read] of itemFields) {
      if (read(was) !== read(now)) changes.push({ action: 'change', kind: 'item', path: `items.${name}.${field}`, before: read(was), after: read(now) });
    }
    const wasSettings = plainSettings(was);
    const nowSettings = plainSettings(now);
    for (const key of [...new Set([...wasSettings.keys(), ...nowSettings.keys()])].sort()) {
      const path = `items.${name}.settings.${key}`;
      const old = wasSettings.get(key);
      const neu = nowSettings.get(key);
      if (old === undefined) changes.push({ action: 'add', kind: 'setting', path, after: neu });
      else if (neu === undefined) changes.push({ action: 'remove', kind: 'setting', path, before: old });
      else if (old !== neu) changes.push({ action: 'change', kind: 'setting', path, before: old, after: neu });
    }
  }
  // Routes of every item present on either side: removed, then added, then changed, keys sorted.
  const routeKeys = new Map<string, { before?: string[]; after?: string[] }>();
  for (const [name, item] of before) for (const [setting, targets] of routesOf(item)) routeKeys.set(`${name}.${setting}`, { before: targets });
  for (const [name, item] of after) {
    for (const [setting, targets] of routesOf(item)) routeKeys.set(`${name}.${setting}`, { ...routeKeys.get(`${name}.${setting}`), after: targets });
  }
  const sortedRoutes = [...routeKeys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const routeChanges: DefinitionChange[][] = [[], [], []];
  for (const [key, route] of sortedRoutes) {
    const path = `connections.${key}`;
    if (route.after === undefined) routeChanges[0]?.push({ action: 'remove', kind: 'connection', path, before: route.before });
    else if (route.before === undefined) routeChanges[1]?.push({ action: 'add', kind: 'connection', path, after: route.after });
    else if (!sameJson(route.before, route.after))
      routeChanges[2]?.push({ action: 'change', kind: 'connection', path, before: route.before, after: route.after });
  }
  return [...changes, ...routeChanges.flat()];
}

function classify(change: DefinitionChange): Pick<PlanOperation, 'op_type' | 'risk' | 'reason'> {
  switch (change.kind) {
    case 'production':
      return { op_type: 'set_production_field', risk: 'safe' };
    case 'item':
      if (change.action === 'add') return { op_type: 'add_item', risk: 'safe' };
      if (change.action === 'remove') return { op_type: 'delete_item', risk: 'destructive', reason: 'item deletion is destructive' };
      if (change.path.endsWith('.class_name'))
        return { op_type: 'replace_item_class', risk: 'destructive', reason: 'class replacement can change runtime behavior' };
      return { op_type: 'set_item_field', risk: 'safe' };
    case 'setting':
      return change.action === 'remove'
        ? { op_type: 'remove_setting', risk: 'destructive', reason: 'setting removal is destructive' }
        : { op_type: 'set_setting', risk: 'safe' };
    case 'connection':
      return change.action === 'remove'
        ? { op_type: 'remove_route', risk: 'destructive', reason: 'route removal is destructive' }
        : { op_type: 'set_route_setting', risk: 'safe' };
  }
}

/** The diff's changes as plan operations, in diff order. */
export function planOperations(changes: DefinitionChange[]): PlanOperation[] {
  return changes.map((change, index) => {
    const { op_type, risk, reason } = classify(change);
    return {
      id: `${String(index + 1).padStart(4, '0')}-${op_type}`,
      op_type,
      ...change,
      risk,
      allowed_by_default: risk === 'safe',
      ...(reason === undefined ? {} : { reason }),
    };
  });
}

const copyItem = (item: ItemDefinition): ItemDefinition => ({ ...item, settings: item.settings.map((setting) => ({ ...setting })) });

/**
 * `current` with the plan's safe operations applied and its destructive ones skipped, as IoP applies a
 * plan without allow_destructive (operation by operation on the stored production): production fields
 * and settings, added items, item fields, new or changed settings and routes come from `desired`; an
 * item `desired` deletes is kept, a replaced class stays the current one, a removed setting or route
 * stays. Items keep their current order, added ones follow in `desired`'s order (IRIS appends them).
 * Only destructive operations are ever skipped, so planning `current` → result gives exactly the safe
 * ones, and result → `desired` exactly the destructive ones.
 */
export function withoutDestructiveChanges(current: ProductionDefinition, desired: ProductionDefinition): ProductionDefinition {
  const wanted = new Map(desired.items.map((item) => [item.name, item]));
  const settingKey = (setting: ItemDefinition['settings'][number]) => `${setting.target}.${setting.name}`;
  const kept = current.items.map((was) => {
    const now = wanted.get(was.name);
    if (now === undefined) return copyItem(was);
    const keys = new Set(now.settings.map(settingKey));
    const removed = was.settings.filter((setting) => !keys.has(settingKey(setting)));
    const merged = copyItem({ ...now, settings: [...now.settings, ...removed] });
    return { ...merged, classname: was.classname };
  });
  const known = new Set(current.items.map((item) => item.name));
  const added = desired.items.filter((item) => !known.has(item.name)).map(copyItem);
  return { ...desired, items: [...kept, ...added], ...withProductionSettings(productionSettingsOf(desired).map((setting) => ({ ...setting }))) };
}

/** JSON with sorted keys and no spaces: the text a fingerprint is taken of. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
