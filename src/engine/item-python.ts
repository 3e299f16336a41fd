/**
 * Which Python runs an item's workers, and whether a debugger listens in them (docs/python-bridge.md,
 * "The developer loop"). The first that is set wins:
 *
 * 1. the item's `%python` Host setting,
 * 2. its production's entry in `pythonByProduction` (conveyor.yaml),
 * 3. the server's interpreter (`python` in conveyor.yaml, CONVEYOR_PYTHON, --python).
 *
 * Each names an interpreter (a command on PATH such as `python3.12`, or a path) or a virtual
 * environment folder (its `bin/python` runs, so the packages installed there are importable). A
 * relative path in `%python` is read from the item class's first classpath (the package folder its
 * settings.py was migrated from), one in conveyor.yaml from the home.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import type { ItemDefinition } from '../core/production.ts';

/** Where an item runs: what picks its Python besides the server's default. */
export interface ItemPlacement {
  production: string;
  item: ItemDefinition;
}

export interface PythonDefaults {
  /** The server's interpreter. */
  interpreter: string;
  /** Production name → interpreter or virtual environment (paths already absolute). */
  byProduction: Readonly<Record<string, string>>;
}

/** debugpy in one item's workers: it listens on host:port, and the start waits for a client when `wait`. */
export interface DebugListen {
  host: string;
  port: number;
  wait: boolean;
}

/** The module that starts debugpy, then hands over to the worker host (python/conveyor_devtools). */
export const debugLauncherModule = 'conveyor_devtools.debug_worker';

function hostSetting(item: ItemDefinition, name: string): string {
  return item.settings.find((s) => s.target === 'Host' && s.name === name)?.value.trim() ?? '';
}

/** The interpreter the item's workers spawn; refuses a path that is neither an interpreter nor a venv. */
export async function itemInterpreter(placement: ItemPlacement | undefined, defaults: PythonDefaults, classpath: string | undefined): Promise<string> {
  const own = placement ? hostSetting(placement.item, '%python') : '';
  if (own !== '') return interpreterAt(own, classpath ?? process.cwd(), `the %python setting of item ${placement?.item.name}`);
  const ofProduction = placement ? defaults.byProduction[placement.production] : undefined;
  if (ofProduction) return interpreterAt(ofProduction, process.cwd(), `pythonByProduction of ${placement?.production} (conveyor.yaml)`);
  return defaults.interpreter;
}

async function interpreterAt(choice: string, base: string, source: string): Promise<string> {
  // A bare command (python3.12) is looked up on PATH by the spawn.
  if (!choice.includes('/')) return choice;
  const path = isAbsolute(choice) ? choice : resolve(base, choice);
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ConveyorError('ERR_CONFIG', `${source} names ${path}, which does not exist`, {
      hint: 'Give a python3 executable or a virtual environment folder (python3 -m venv <folder>)',
    });
  }
  if (!info.isDirectory()) return path;
  const inVenv = join(path, 'bin', 'python');
  if ((await stat(inVenv).catch(() => null)) === null) {
    throw new ConveyorError('ERR_CONFIG', `${source} names the folder ${path}, which is not a virtual environment (it has no bin/python)`, {
      hint: `Create one there with: python3 -m venv ${path}`,
    });
  }
  return inVenv;
}

/**
 * The item's `%debugpy` Host setting: a port, or host:port (the host defaults to 127.0.0.1), and
 * `%debugpy_wait` (true / 1) to hold the start until a debugger attaches. Without the setting, the
 * server's CONVEYOR_DEBUGPY variable may name the item (`Router=5678`, `Router=5678/wait`, several
 * separated by commas), so an item can be debugged without editing its production. Null when neither does.
 */
export function itemDebugListen(item: ItemDefinition, environment: NodeJS.ProcessEnv = process.env): DebugListen | null {
  const value = hostSetting(item, '%debugpy');
  if (value !== '') {
    if (/^(0|false|off)$/i.test(value)) return null;
    return listenAddress(value, /^(1|true|yes|on)$/i.test(hostSetting(item, '%debugpy_wait')), `Item ${item.name}: %debugpy`);
  }
  for (const entry of (environment['CONVEYOR_DEBUGPY'] ?? '').split(',')) {
    const [name, address = ''] = entry.split('=', 2).map((part) => part.trim());
    if (name !== item.name) continue;
    const [where = '', flag] = address.split('/', 2);
    return listenAddress(where, flag === 'wait', `CONVEYOR_DEBUGPY for item ${item.name}`);
  }
  return null;
}

function listenAddress(value: string, wait: boolean, source: string): DebugListen {
  const match = /^(?:(.+):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65_535)) {
    throw new ConveyorError('ERR_CONFIG', `${source} must be a port or host:port, got ${JSON.stringify(value)}`, {
      hint: 'For example 5678 or 127.0.0.1:5678',
    });
  }
  return { host: match[1] ?? '127.0.0.1', port, wait };
}
