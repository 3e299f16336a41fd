/**
 * `conveyor stop`: ends the server of a home, whether it runs in a terminal or was started in the
 * background by a local-mode `cli`. It sends SIGTERM to the pid in `<home>/server.pid` (the server then
 * stops its productions and closes within its shutdown limit, killing its workers past it) and waits
 * for the process to end, a little longer than that limit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processExists } from '../core/process-exists.ts';

export interface StopOutcome {
  /** What to print. */
  line: string;
  exitCode: number;
}

const pollMs = 100;

export async function stopHomeServer(home: string, shutdownTimeoutMs: number): Promise<StopOutcome> {
  const pid = recordedPid(home);
  if (pid === null || !processExists(pid)) return { line: `No Conveyor server runs for ${home}`, exitCode: 0 };
  try {
    process.kill(pid, 'SIGTERM');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return { line: `No Conveyor server runs for ${home}`, exitCode: 0 };
    return { line: `Cannot signal the server of ${home} (pid ${pid}): ${code ?? String(error)}; it runs as another user?`, exitCode: 1 };
  }
  // The server's own hard stop fires at its shutdown limit; a few seconds more cover its exit.
  const deadline = Date.now() + shutdownTimeoutMs + 5_000;
  while (processExists(pid)) {
    if (Date.now() > deadline) {
      return {
        line: `The server of ${home} (pid ${pid}) is still running ${shutdownTimeoutMs + 5_000} ms after SIGTERM: end it with kill -9 ${pid}`,
        exitCode: 1,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return { line: `Stopped the Conveyor server of ${home} (pid ${pid})`, exitCode: 0 };
}

function recordedPid(home: string): number | null {
  try {
    const pid = Number(readFileSync(join(home, 'server.pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
