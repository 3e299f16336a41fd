/**
 * Python run on the cli's machine with Conveyor's `iop` package on its path (`CONVEYOR_PYTHON`, default
 * python3), for what IoP's cli computes in Python: reading a settings file's PRODUCTIONS, rendering a
 * production as Python, Mermaid or a graph. The script writes its answer after a marker line, so what
 * user modules print on import never mixes into it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConveyorError } from '../core/errors.ts';

/** python/ of this package (from src/cli or dist/cli alike). */
const pythonRoot = fileURLToPath(new URL('../../python', import.meta.url));

export const answerMarker = '\n@@answer@@';

/** Runs `script` with `args` and `input` on stdin; returns what it wrote after `answerMarker`. */
export function runLocalPython(script: string, args: string[], env: Readonly<Record<string, string | undefined>>, what: string, input = ''): string {
  const python = env.CONVEYOR_PYTHON || 'python3';
  const run = spawnSync(python, ['-c', script, ...args], {
    encoding: 'utf8',
    input,
    env: { ...env, PYTHONPATH: [pythonRoot, env.PYTHONPATH].filter(Boolean).join(':') },
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw new ConveyorError('ERR_CONFIG', `Cannot run ${python} for ${what}: ${run.error.message}`);
  const marker = run.stdout.lastIndexOf(answerMarker);
  if (run.status !== 0 || marker < 0) {
    const last = run.stderr.trim().split('\n').slice(-1)[0] ?? '';
    throw new ConveyorError('ERR_CONFIG', `${what} failed: ${last || `${python} exited with ${run.status}`}`);
  }
  return run.stdout.slice(marker + answerMarker.length);
}
