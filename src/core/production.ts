/** The production definition: what the spec exports and what `settings.py` PRODUCTIONS describe. */

export type SettingTarget = 'Host' | 'Adapter';

export interface ItemSetting {
  target: SettingTarget;
  name: string;
  value: string;
}

export interface ItemDefinition {
  /** The config name: unique in the production, the target of messages. */
  name: string;
  /** The registered component class (a class binding name, or a built-in class). */
  classname: string;
  category: string;
  poolSize: number;
  enabled: boolean;
  foreground: boolean;
  comment: string;
  logTraceEvents: boolean;
  schedule: string;
  settings: ItemSetting[];
}

/**
 * A production-level setting (IRIS's `<Setting Name="ShutdownTimeout">` directly under `<Production>`:
 * ShutdownTimeout, UpdateTimeout, AlertNotificationManager/Operation/Recipients, AlertActionWindow).
 * Kept as IoP writes it, the value as text, in the order given.
 */
export interface ProductionSetting {
  name: string;
  value: string;
}

export interface ProductionDefinition {
  name: string;
  description: string;
  testingEnabled: boolean;
  logGeneralTraceEvents: boolean;
  actorPoolSize: number;
  items: ItemDefinition[];
  /**
   * Production-level settings. Optional so that definitions stored before they were kept (JSON without
   * the field) read back unchanged, with none: absent and empty mean the same.
   */
  settings?: ProductionSetting[];
}

/** The production-level settings of a definition (none when the stored JSON predates them). */
export function productionSettingsOf(definition: ProductionDefinition): ProductionSetting[] {
  return definition.settings ?? [];
}

/** The `settings` member of a definition: left out when there are none, so such definitions stay as before. */
export function withProductionSettings(settings: ProductionSetting[]): Pick<ProductionDefinition, 'settings'> {
  return settings.length === 0 ? {} : { settings };
}

/** A production-level setting's value as a whole number of seconds, or undefined when absent or not one. */
export function productionSecondsOf(definition: ProductionDefinition, name: string): number | undefined {
  const setting = productionSettingsOf(definition).find((entry) => entry.name === name);
  if (setting === undefined) return undefined;
  const seconds = Number(setting.value.trim());
  return setting.value.trim() !== '' && Number.isInteger(seconds) && seconds >= 0 ? seconds : undefined;
}

/** Lifecycle states of a production in a namespace (architecture §4). */
export type ProductionState = 'stopped' | 'starting' | 'running' | 'stopping' | 'suspended' | 'troubled' | 'unknown';

/** What the spec reports: the transitional states read as the state they lead to from the outside. */
export type ReportedStatus = 'running' | 'stopped' | 'suspended' | 'troubled' | 'unknown';

export interface ProductionRecord {
  namespace: string;
  name: string;
  definition: ProductionDefinition;
  autoStart: boolean;
  /** Epoch ms, or null when never started / stopped. */
  lastStartTime: number | null;
  lastStopTime: number | null;
  /** The durable state: `running` while started (survives a crash, which then reads as troubled). */
  state: 'running' | 'stopped';
  updatedAt: number;
}

export function newItem(name: string, classname: string, overrides: Partial<ItemDefinition> = {}): ItemDefinition {
  return {
    name,
    classname,
    category: '',
    poolSize: 1,
    enabled: true,
    foreground: false,
    comment: '',
    logTraceEvents: false,
    schedule: '',
    settings: [],
    ...overrides,
  };
}

export function newProduction(name: string, items: ItemDefinition[] = [], overrides: Partial<ProductionDefinition> = {}): ProductionDefinition {
  return {
    name,
    description: '',
    testingEnabled: true,
    logGeneralTraceEvents: false,
    actorPoolSize: 2,
    items,
    ...overrides,
  };
}
