/**
 * The last resort of a shutdown that ran out of time: every process this server started (Python
 * workers, DTL hooks, migration scripts, checks) is killed, so none outlives the server whatever its
 * user code is doing. Found through /proc (Linux), or `ps` elsewhere.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The ids of this process's direct children. */
export function childProcessIds(parent = process.pid): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((entry) => parentOf(Number(entry)) === parent)
      .map(Number);
  } catch {
    return childrenFromPs(parent);
  }
}

/** SIGKILLs every direct child; returns how many were signalled. */
export function killChildProcesses(): number {
  let killed = 0;
  for (const pid of childProcessIds()) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}

function parentOf(pid: number): number | null {
  try {
    // Fields after the command (which may hold spaces and parentheses): state, ppid, …
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return null;
  }
}

function childrenFromPs(parent: number): number[] {
  try {
    const lines = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' }).split('\n');
    return lines
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([pid, ppid]) => pid !== undefined && ppid === parent && Number.isFinite(pid))
      .map(([pid]) => pid as number);
  } catch {
    return [];
  }
}
