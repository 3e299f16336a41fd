/**
 * The example production a fresh home gets with `--example` (what `npm start` runs): files dropped
 * into `<home>/example/in` are routed to `<home>/example/out`, and every message is recorded in
 * `<home>/example/record.jsonl`. It uses built-in components only, so it runs with nothing else
 * installed; the Python example in examples/ shows the same with Python components.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newItem, newProduction, type ProductionDefinition } from '../core/production.ts';
import type { Store } from '../store/store.ts';

export const exampleProductionName = 'Conveyor.Example.FileRouting';

export function exampleProduction(home: string): ProductionDefinition {
  const folder = join(home, 'example');
  return newProduction(
    exampleProductionName,
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

/** Installs the example in USER when the namespace has no production yet. Returns whether it did. */
export async function installExample(store: Store, home: string): Promise<boolean> {
  if ((await store.productions.list('USER')).length > 0) return false;
  await mkdir(join(home, 'example', 'in'), { recursive: true });
  await store.productions.put('USER', exampleProduction(home));
  await store.productions.setAutoStart('USER', exampleProductionName, true);
  await store.productions.setDefault('USER', exampleProductionName);
  return true;
}
