/**
 * Runs another engineer's single benchmark script (bench/*.ts) as a child process, echoes its
 * output, and hands back its lines for the scenario to pick its figures from.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './results.ts';

export interface ScriptRun {
  exitCode: number | null;
  lines: string[];
  /** Whether the script was stopped for running past its time limit. */
  timedOut: boolean;
}

export function scriptExists(name: string): boolean {
  return existsSync(join(repoRoot, 'bench', name));
}

export function runScript(name: string, args: string[], timeoutMs: number): Promise<ScriptRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', name), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk.toString().replace(/^(?=.)/gm, '      '));
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('exit', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, lines: output.split('\n').filter((line) => line.trim() !== ''), timedOut });
    });
  });
}
