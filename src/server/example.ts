/**
 * The example production a fresh home gets with `--example` (what `npm start` runs): the Python
 * example of `examples/file-routing` (files dropped into `<home>/python-example/in` are routed by
 * their content to `out/urgent` or `out/normal`), migrated and started. When Python cannot run it
 * (no interpreter, say), a built-in twin is installed instead, so a first start always shows a
 * production at work.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorText } from '../core/errors.ts';
import { newItem, newProduction, type ProductionDefinition } from '../core/production.ts';
import type { Engine } from '../engine/engine.ts';
import type { Store } from '../store/store.ts';

export const pythonExampleSettings = fileURLToPath(new URL('../../examples/file-routing/settings.py', import.meta.url));
export const pythonExampleName = 'Example.FileRouting';
export const builtinExampleName = 'Conveyor.Example.FileRouting';

/** The built-in twin: files of example/in go to example/out and are recorded in example/record.jsonl. */
export function builtinExampleProduction(home: string): ProductionDefinition {
  const folder = join(home, 'example');
  return newProduction(
    builtinExampleName,
    [
      newItem('FileIn', 'Conveyor.Service.FileInbound', {
        comment: 'Picks up the files of example/in',
        settings: [
          { target: 'Adapter', name: 'FilePath', value: join(folder, 'in') },
          { target: 'Adapter', name: 'CallInterval', value: '1' },
          { target: 'Host', name: 'TargetConfigNames', value: 'Router' },
        ],
      }),
      newItem('Router', 'Conveyor.Process.Router', {
        comment: 'Sends each file to the writer and the recorder',
        settings: [{ target: 'Host', name: 'TargetConfigNames', value: 'FileOut,Recorder' }],
      }),
      newItem('FileOut', 'Conveyor.Operation.FileOutbound', {
        comment: 'Writes each file into example/out',
        settings: [{ target: 'Adapter', name: 'FilePath', value: join(folder, 'out') }],
      }),
      newItem('Recorder', 'Conveyor.Operation.Echo', {
        comment: 'Appends each message to example/record.jsonl',
        settings: [{ target: 'Host', name: 'FilePath', value: join(folder, 'record.jsonl') }],
      }),
    ],
    { description: 'Routes the files of example/in to example/out and records each one' },
  );
}

export interface InstalledExample {
  production: string;
  /** Where to drop files. */
  inbox: string;
}

/**
 * On a home whose USER namespace has no production yet: installs the example, makes it the default
 * with AutoStart, and starts it. Returns what was installed, or null when the home was not fresh.
 */
export async function installExample(engine: Engine, store: Store, home: string, say: (line: string) => void): Promise<InstalledExample | null> {
  if ((await store.productions.list('USER')).length > 0) return null;
  const user = await engine.namespace('USER');
  let installed: InstalledExample;
  try {
    await user.migrate(pythonExampleSettings);
    installed = { production: pythonExampleName, inbox: join(process.env['CONVEYOR_EXAMPLE_DATA'] || join(home, 'python-example'), 'in') };
  } catch (error) {
    say(`The Python example could not be installed (${errorText(error)}); installing the built-in example instead`);
    await store.productions.put('USER', builtinExampleProduction(home));
    installed = { production: builtinExampleName, inbox: join(home, 'example', 'in') };
  }
  await mkdir(installed.inbox, { recursive: true });
  await store.productions.setAutoStart('USER', installed.production, true);
  await store.productions.setDefault('USER', installed.production);
  await user.start(installed.production);
  return installed;
}
