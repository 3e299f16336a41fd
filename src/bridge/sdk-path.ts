/** Where the Python SDK (`iop`, `grongier.pex`, `iris`, the worker host, the migration script) lives. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConveyorError } from '../core/errors.ts';

/**
 * The repository's `python/` folder, found by walking up from this file so that it is found both
 * from the sources (src/bridge) and from a compiled tree (dist/src/bridge).
 */
function findSdkDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'python');
    if (existsSync(join(candidate, 'conveyor_host', '__main__.py'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new ConveyorError(
        'ERR_BRIDGE',
        `The Python SDK folder (python/conveyor_host) was not found above ${fileURLToPath(import.meta.url)}: the installation is incomplete`,
      );
    dir = parent;
  }
}

export const pythonSdkDir = findSdkDir();

export function defaultInterpreter(): string {
  return process.env.CONVEYOR_PYTHON ?? 'python3';
}
