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

export interface ProductionDefinition {
  name: string;
  description: string;
  testingEnabled: boolean;
  logGeneralTraceEvents: boolean;
  actorPoolSize: number;
  items: ItemDefinition[];
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
