/**
 * The settings.py migration (IoP `iop -m`): registers the CLASSES as class bindings, stores the
 * PRODUCTIONS as definitions and the SCHEMAS as JSON Schemas named `module.Class`. Everything is
 * read and checked first; then every registration is written in one store transaction, so a kill
 * at any instant leaves either none or all of them.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ClassBinding } from '../../core/components.ts';
import { ConveyorError } from '../../core/errors.ts';
import { newItem, newProduction, withProductionSettings, type ItemDefinition, type ProductionDefinition } from '../../core/production.ts';
import type { MigrationRegistrations, Store } from '../../store/store.ts';
import { defaultInterpreter } from '../../bridge/index.ts';
import type { MigrationReport } from '../namespace-operations.ts';
import { checkIrisClasses } from './iris-class-check.ts';
import { runSettingsScript, type ScriptItem, type ScriptProduction } from './settings-script.ts';

const missingLines = { classes: 'No classes to register', productions: 'No productions to register', schemas: 'No schemas to register' } as const;

/** What the user chooses for one migration. */
export interface MigrationChoices {
  /**
   * IoP's `strict_production_validation` (`PUT /migrate` body, `Utils.migrate(..., strict_production_validation=True)`):
   * a production of PRODUCTIONS with validation issues refuses the whole migration; nothing is written.
   */
  strictProductionValidation?: boolean;
}

export interface MigrateOptions extends MigrationChoices {
  /** Default: CONVEYOR_PYTHON or python3. */
  interpreter?: string;
  /** Longest time loading the file may take (default 120 s). */
  timeoutMs?: number;
}

/** A settings file read and checked, not yet written anywhere. */
export interface PreparedMigration {
  registrations: MigrationRegistrations;
  report: MigrationReport;
}

export async function migrateSettings(store: Store, namespace: string, settingsPath: string, options: MigrateOptions = {}): Promise<MigrationReport> {
  const prepared = await prepareMigration(settingsPath, options);
  await checkIrisClasses(prepared.registrations, async (name) => (await store.classes.get(namespace, name)) !== null);
  await store.settingsMigrations.commit(namespace, prepared.registrations, null);
  return prepared.report;
}

/** Runs the settings file (its user code) and turns what it declares into registrations; writes nothing. */
export async function prepareMigration(settingsPath: string, options: MigrateOptions = {}): Promise<PreparedMigration> {
  const path = resolve(settingsPath);
  try {
    await access(path);
  } catch {
    throw new ConveyorError('ERR_MIGRATION', `${path}: the settings file does not exist`);
  }
  const document = await runSettingsScript(
    path,
    options.interpreter ?? defaultInterpreter(),
    options.timeoutMs ?? 120_000,
    options.strictProductionValidation === true,
  );
  const now = Date.now();
  const classes: ClassBinding[] = document.classes.map((c) => ({ ...c, runtime: 'python', updatedAt: now }));
  const productions = document.productions.map((p, index) => toDefinition(path, index, p));
  const output = [
    ...classes.map((binding) => `Registered ${binding.kind} ${binding.name} (${binding.module}.${binding.className})`),
    ...document.schemas.map((schema) => `Registered schema ${schema.name}`),
    ...productions.map((production) => `Registered production ${production.name}`),
    ...document.missing.map((section) => missingLines[section]),
    // Not strict: IoP warns and migrates; the warnings reach whoever asked (cli, Utils.migrate's output).
    ...(document.validation ?? []).map((issue) => `Validation warning: ${issue}`),
  ];
  return {
    registrations: { classes, schemas: document.schemas, productions },
    report: {
      classes: classes.map((b) => b.name),
      productions: productions.map((p) => p.name),
      schemas: document.schemas.map((s) => s.name),
      output,
    },
  };
}

/** Text attributes to a definition; absent ones take the defaults of `newProduction`/`newItem`. */
function toDefinition(file: string, index: number, source: ScriptProduction): ProductionDefinition {
  const where = `${file}: PRODUCTIONS[${index}] (${source.name})`;
  const defaults = newProduction(source.name);
  return {
    ...defaults,
    description: source.description ?? defaults.description,
    testingEnabled: parseBoolean(source.testingEnabled, defaults.testingEnabled, `${where} @TestingEnabled`),
    logGeneralTraceEvents: parseBoolean(source.logGeneralTraceEvents, defaults.logGeneralTraceEvents, `${where} @LogGeneralTraceEvents`),
    actorPoolSize: parseCount(source.actorPoolSize, defaults.actorPoolSize, `${where} ActorPoolSize`),
    items: source.items.map((item) => toItem(`${where} item ${item.name}`, item)),
    ...withProductionSettings(source.settings),
  };
}

function toItem(where: string, source: ScriptItem): ItemDefinition {
  const defaults = newItem(source.name, source.classname);
  return {
    ...defaults,
    category: source.category ?? defaults.category,
    poolSize: parseCount(source.poolSize, defaults.poolSize, `${where} @PoolSize`),
    enabled: parseBoolean(source.enabled, defaults.enabled, `${where} @Enabled`),
    foreground: parseBoolean(source.foreground, defaults.foreground, `${where} @Foreground`),
    comment: source.comment ?? defaults.comment,
    logTraceEvents: parseBoolean(source.logTraceEvents, defaults.logTraceEvents, `${where} @LogTraceEvents`),
    schedule: source.schedule ?? defaults.schedule,
    settings: source.settings,
  };
}

function parseBoolean(text: string | undefined, fallback: boolean, where: string): boolean {
  if (text === undefined || text.trim() === '') return fallback;
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConveyorError('ERR_MIGRATION', `${where}: '${text}' is not a boolean (use true/false or 1/0)`);
}

function parseCount(text: string | undefined, fallback: number, where: string): number {
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < 0) throw new ConveyorError('ERR_MIGRATION', `${where}: '${text}' is not a whole number`);
  return value;
}
