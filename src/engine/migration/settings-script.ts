/**
 * Runs `python3 -m conveyor_migrate <settings.py>` and returns the JSON document it writes on fd 3.
 * The Python side imports the user's modules, so what they print goes to stdout/stderr, never into
 * the document.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ComponentKind, DeclaredSetting } from '../../core/components.ts';
import { ConveyorError } from '../../core/errors.ts';
import { pythonSdkDir } from '../../bridge/index.ts';

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
}

type Outcome = ScriptDocument | { error: { message: string; traceback: string } };

export async function runSettingsScript(settingsPath: string, interpreter: string, timeoutMs: number): Promise<ScriptDocument> {
  const existing = process.env.PYTHONPATH;
  const child = spawn(interpreter, ['-m', 'conveyor_migrate', settingsPath], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONPATH: existing ? `${pythonSdkDir}:${existing}` : pythonSdkDir, PYTHONIOENCODING: 'utf-8' },
  });
  // Importing user modules runs user code: a file that never finishes must not hang the migration.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const [documentText, , stderr, exit] = await Promise.all([
    collect(child.stdio[3] as Readable),
    collect(child.stdout!),
    collect(child.stderr!),
    new Promise<{ code: number | null; error: Error | null }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code, error: null }));
    }),
  ]);
  clearTimeout(timer);
  if (timedOut) {
    throw new ConveyorError('ERR_MIGRATION', `${settingsPath}: loading the file did not finish within ${timeoutMs} ms (does it wait for something at import time?)`);
  }
  if (exit.error) {
    throw new ConveyorError('ERR_MIGRATION', `${settingsPath}: cannot start the Python interpreter '${interpreter}': ${exit.error.message}`, {
      hint: 'Set CONVEYOR_PYTHON to a python3 executable',
    });
  }
  if (documentText === '') {
    throw new ConveyorError('ERR_MIGRATION', `${settingsPath}: the migration script ended (exit code ${String(exit.code)}) without a result${stderr ? `:\n${stderr.trim()}` : ''}`);
  }
  const outcome = JSON.parse(documentText) as Outcome;
  if ('error' in outcome) {
    throw new ConveyorError('ERR_MIGRATION', `${settingsPath}: ${outcome.error.message}`, { details: { traceback: outcome.error.traceback } });
  }
  return outcome;
}

function collect(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
