/**
 * The real `conveyor doctor` command: its flags reach the checks, a problem fails it (exit 1), a
 * warning does not, and each line says what to do.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, repositoryRoot, temporaryFolder, type CliResult } from './support/cli-harness.ts';

const folder = temporaryFolder('conveyor-doctor-');
let holder: Server;
let heldPort: number;

function doctor(args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repositoryRoot, 'src', 'server', 'main.ts'), 'doctor', ...args], {
    cwd: repositoryRoot,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  heldPort = (holder.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

describe('conveyor doctor', () => {
  it('a port in use is a warning only: exit 0, with how to pick another', async () => {
    const result = await doctor(['--home', join(folder, 'home-a'), '--port', String(heldPort)]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^warning Port ${heldPort} on 127\\.0\\.0\\.1 is in use`, 'm'));
    expect(result.stdout).toMatch(/^ok {6}Node /m);
    expect(result.stdout).toMatch(/^ok {6}Workers run python3 \(Python 3\./m);
  });

  it('an unreachable --store, a missing --python and a damaged database are problems: exit 1', async () => {
    const store = await doctor(['--home', join(folder, 'home-b'), '--port', '0', '--store', 'postgres://conveyor:hidden@127.0.0.1:1/none']);
    expect(store.code).toBe(1);
    expect(store.stdout).toMatch(/^problem The PostgreSQL store postgres:\/\/conveyor:\*\*\*@127\.0\.0\.1:1\/none does not answer/m);
    expect(store.stdout).not.toContain('hidden');

    const python = await doctor(['--home', join(folder, 'home-c'), '--port', '0', '--python', join(folder, 'no-python')]);
    expect(python.code).toBe(1);
    expect(python.stdout).toMatch(/^problem Python not found: /m);

    const home = join(folder, 'home-d');
    const first = await doctor(['--home', home, '--port', '0']);
    expect(first.code).toBe(0);
    // The doctor changes nothing: the home still does not exist; make it as a start would.
    expect(existsSync(home)).toBe(false);
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, 'conveyor.db'), 'not a database '.repeat(300));
    const damaged = await doctor(['--home', home, '--port', '0']);
    expect(damaged.code).toBe(1);
    expect(damaged.stdout).toContain(`problem The SQLite store ${join(home, 'conveyor.db')} cannot be read`);
    expect(damaged.stdout.trimEnd().split('\n').at(-1)).toMatch(/^1 problem\(s\), \d+ warning\(s\)\.$/);
  });
});
