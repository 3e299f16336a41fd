import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childProcessIds, killChildProcesses } from './child-processes.ts';

describe('child processes of the server', () => {
  it('finds a child that ignores SIGTERM and kills it', async () => {
    // A child that would outlive a polite shutdown.
    const child = spawn('sh', ['-c', 'trap "" TERM; while true; do sleep 1; done'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(childProcessIds()).toContain(child.pid);
    expect(killChildProcesses()).toBeGreaterThanOrEqual(1);
    expect(await exited).toBe('SIGKILL');
    expect(childProcessIds()).not.toContain(child.pid);
  });

  it('finds no children of a process that has none', () => {
    expect(childProcessIds(2 ** 22 + 12345)).toEqual([]);
  });
});
