/**
 * A real Conveyor server for the API and memory figures: `conveyor serve` (bin/conveyor.js, the
 * compiled build) on a fresh home in a temporary folder, port 0 on 127.0.0.1, first admin password
 * from the environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './results.ts';

export const adminPassword = 'bench-secret';

export interface BenchServer {
  /** `http://127.0.0.1:PORT/api/iop` */
  api: string;
  home: string;
  pid: number;
  authorization: string;
  stop(): Promise<void>;
}

/** Environment without the caller's Conveyor / CLI settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(CLI_|IOP_|CONVEYOR_)/.test(name)) env[name] = value;
  return { ...env, ...extra };
}

/** Starts a server; `prepare` may fill the fresh home (e.g. its store) before the server opens it. */
export async function startServer(options: { example?: boolean; args?: string[]; prepare?: (home: string) => Promise<void> } = {}): Promise<BenchServer> {
  const home = mkdtempSync(join(tmpdir(), 'conveyor-bench-home-'));
  await options.prepare?.(home);
  // What `npm start` runs: the compiled server (rebuilt first when a source is newer than it).
  const args = [
    join(repoRoot, 'bin', 'conveyor.js'),
    'serve',
    '--home',
    home,
    '--port',
    '0',
    ...(options.example ? ['--example'] : []),
    ...(options.args ?? []),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: cleanEnv({ CONVEYOR_ADMIN_PASSWORD: adminPassword }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const api = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API: (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening:\n${output}`)));
  });
  return {
    api,
    home,
    pid: child.pid!,
    authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
