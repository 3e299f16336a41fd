/** Where the Python SDK (`iop`, `grongier.pex`, `iris`, the worker host, the migration script) lives. */
import { fileURLToPath } from 'node:url';

export const pythonSdkDir = fileURLToPath(new URL('../../python', import.meta.url));

export function defaultInterpreter(): string {
  return process.env.CONVEYOR_PYTHON ?? 'python3';
}
