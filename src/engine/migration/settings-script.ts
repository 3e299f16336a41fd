/**
 * Reads a settings.py through the bridge: a `migrate` request of a fresh worker host
 * (python/conveyor_migrate), answered with the document below or a structured Python failure.
 * The Python side imports the user's modules, so what they print goes to the worker's
 * stdout/stderr, never into the document; the last stderr lines explain a worker that died.
 */
import type { ComponentKind, DeclaredSetting } from '../../core/components.ts';
import { ConveyorError, errorText, isConveyorError } from '../../core/errors.ts';
import { describeFailure, PythonError, type PythonFailure } from '../../bridge/index.ts';
import { runInFreshWorker } from '../../bridge/task-workers.ts';

export interface ScriptBinding {
  name: string;
  kind: ComponentKind;
  module: string;
  className: string;
  classpaths: string[];
  settings: DeclaredSetting[];
  adapterType: string | null;
}

/** Production attributes as text, only those the file gives. */
export interface ScriptProduction {
  name: string;
  testingEnabled?: string;
  logGeneralTraceEvents?: string;
  description?: string;
  actorPoolSize?: string;
  /** Production-level settings (python/conveyor_migrate/productions.py checks them). */
  settings: Array<{ name: string; value: string }>;
  items: ScriptItem[];
}

export interface ScriptItem {
  name: string;
  classname: string;
  category?: string;
  poolSize?: string;
  enabled?: string;
  foreground?: string;
  comment?: string;
  logTraceEvents?: string;
  schedule?: string;
  settings: Array<{ target: 'Host' | 'Adapter'; name: string; value: string }>;
}

export interface ScriptDocument {
  classes: ScriptBinding[];
  productions: ScriptProduction[];
  schemas: Array<{ name: string; category: string; schema: string }>;
  missing: Array<'classes' | 'productions' | 'schemas'>;
  /** Validation issues of DSL or legacy productions ("<production>: <issue>"), present only when there are some (not strict). */
  validation?: string[];
}

/**
 * Loads `settingsPath` in a python3 worker and returns what it declares. Rejects with ERR_MIGRATION:
 * the file's failure (a PythonError carrying the structured failure), a load that overran
 * `timeoutMs` (the worker is ended), an interpreter that cannot start, a worker that died (with
 * its last stderr lines).
 */
export async function runSettingsScript(settingsPath: string, interpreter: string, timeoutMs: number, strict = false): Promise<ScriptDocument> {
  let answer;
  try {
    // What the user's modules print is not part of the migration's report. `strict`: IoP's
    // strict_production_validation (a PRODUCTIONS entry with validation issues fails the load).
    const frame = { t: 'migrate' as const, path: settingsPath, strict };
    answer = await runInFreshWorker({ interpreter, onOutput: () => undefined }, frame, 'load the settings file', timeoutMs);
  } catch (error) {
    throw migrationError(settingsPath, timeoutMs, error);
  }
  if (answer.t === 'failure') throw new PythonError('ERR_MIGRATION', `${settingsPath}: ${failureText(answer.failure)}`, answer.failure);
  return answer.value as ScriptDocument;
}

/** The loader's own errors (EntryError) are sentences already; anything else (SystemExit, …) is named by its type. */
function failureText(failure: PythonFailure): string {
  return failure.type === 'EntryError' ? failure.message : describeFailure(failure);
}

function migrationError(settingsPath: string, timeoutMs: number, error: unknown): ConveyorError {
  if (isConveyorError(error, 'ERR_TIMEOUT')) {
    return new ConveyorError(
      'ERR_MIGRATION',
      `${settingsPath}: loading the file did not finish within ${timeoutMs} ms (does it wait for something at import time?)`,
      { cause: error },
    );
  }
  // The bridge's sentence ("Cannot start the Python interpreter …", "The Python worker … exited …") after the file's name.
  const text = errorText(error);
  return new ConveyorError('ERR_MIGRATION', `${settingsPath}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`, {
    hint: isConveyorError(error) ? error.hint : undefined,
    cause: error,
  });
}
