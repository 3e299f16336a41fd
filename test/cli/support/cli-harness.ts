/**
 * End-to-end helpers for the CLI: a real Conveyor server process on a temporary home (TCP on a free
 * port plus the home's socket), and the real `bin/cli.js` run as a subprocess.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const cliPath = join(repositoryRoot, 'bin', 'cli.js');
export const echoFixture = join(repositoryRoot, 'test', 'cli', 'fixtures', 'echo');
export const adminPassword = 'cli-e2e-secret';

export interface RunningServer {
  home: string;
  url: string;
  socket: string;
  stop(): Promise<void>;
}

export function temporaryFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** An environment without the variables that would switch the CLI's mode behind a test's back. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(CLI_|IOP_|CONVEYOR_|NO_COLOR|FORCE_COLOR)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, CONVEYOR_ADMIN_PASSWORD: adminPassword, CONVEYOR_PORT: '0', ...extra };
}

export async function startServer(home: string, extraArgs: string[] = []): Promise<RunningServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repositoryRoot, 'src', 'server', 'main.ts'), 'serve', '--home', home, '--port', '0', ...extraArgs],
    {
      cwd: repositoryRoot,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 45_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API: (https?:\/\/[^\s/]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { home, url, socket: join(home, 'conveyor.sock'), stop: () => stopProcess(child) };
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops a server the CLI started in the background, by the pid its home records. */
export async function stopHomeServer(home: string): Promise<void> {
  const pidFile = join(home, 'server.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < 15_000; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.kill(pid, 'SIGKILL');
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
}

export function startCli(args: string[], options: CliOptions = {}): { child: ChildProcess; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repositoryRoot,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { child, result };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).result;
}

/** Waits until `read()` contains `text` (a bounded wait for output of a long-running command). */
export async function waitForOutput(read: () => string, text: string | RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const found = () => (typeof text === 'string' ? read().includes(text) : text.test(read()));
  while (!found()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A copy of the echo package in a temporary folder, optionally with REMOTE_SETTINGS appended. */
export function echoPackageCopy(remoteSettings?: string): string {
  const folder = temporaryFolder('cli-echo-');
  cpSync(echoFixture, folder, { recursive: true });
  if (remoteSettings !== undefined) {
    const settings = join(folder, 'settings.py');
    writeFileSync(settings, `${readFileSync(settings, 'utf8')}\nREMOTE_SETTINGS = ${remoteSettings}\n`);
  }
  return folder;
}
