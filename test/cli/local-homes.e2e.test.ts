/**
 * Local mode never clashes over a fixed TCP port: with 52773 held by something else, local-mode
 * commands against two homes each start their own server (socket for the cli, a free TCP port
 * recorded in `<home>/server.url`), both answer, and `conveyor stop` ends each.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, echoPackageCopy, repositoryRoot, runCli, stopHomeServer, temporaryFolder, type CliResult } from './support/cli-harness.ts';

const fixedPort = 52773;
const homes = [join(temporaryFolder('cli-home-a-'), 'home'), join(temporaryFolder('cli-home-b-'), 'home')];
const packageFolder = echoPackageCopy();
let holder: Server | null = null;

/** The environment of a user who configured nothing: no CONVEYOR_PORT, so the cli's own choice shows. */
function homeEnv(home: string): Record<string, string> {
  const env = cleanEnv({ CONVEYOR_HOME: home });
  delete env.CONVEYOR_PORT;
  return env;
}

const cli = (home: string, args: string[]) => runCli(args, { env: homeEnv(home), cwd: packageFolder });

function conveyor(args: string[], home: string): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repositoryRoot, 'src', 'server', 'main.ts'), ...args], {
    cwd: repositoryRoot,
    env: homeEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Holds 52773 for the test; when something else on this machine already holds it, that serves as well. */
function holdFixedPort(): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(null) : reject(error)));
    server.listen(fixedPort, '127.0.0.1', () => resolve(server));
  });
}

function portOf(home: string): number {
  const [url] = readFileSync(join(home, 'server.url'), 'utf8').split('\n');
  return Number(new URL(url!).port);
}

beforeAll(async () => {
  holder = await holdFixedPort();
});

afterAll(async () => {
  for (const home of homes) await stopHomeServer(home);
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  for (const folder of [...homes.map((home) => join(home, '..')), packageFolder]) rmSync(folder, { recursive: true, force: true });
});

describe('local mode with 52773 taken', () => {
  it('a command in each of two homes starts a server for it on a free port, and says where and how to stop it', async () => {
    for (const home of homes) {
      const result = await cli(home, ['-x']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ Production: '', Status: 'stopped' });
      expect(result.stderr).toContain(`starting one in the background`);
      expect(result.stderr).toMatch(
        new RegExp(`Started it \\(pid \\d+\\): portal at http://127\\.0\\.0\\.1:\\d+/portal/; stop it with: conveyor stop --home ${home}\\n$`),
      );
      expect(portOf(home)).not.toBe(fixedPort);
    }
    expect(portOf(homes[0]!)).not.toBe(portOf(homes[1]!));
  });

  it('both homes run a production at the same time, each on its own server', async () => {
    for (const home of homes) {
      expect((await cli(home, ['-m', 'settings.py'])).code).toBe(0);
      const started = await cli(home, ['-s', 'Echo.Production', '-D']);
      expect(started, started.stderr).toMatchObject({ code: 0, stdout: 'Production Echo.Production started\n' });
    }
    for (const home of homes) {
      expect(JSON.parse((await cli(home, ['-x'])).stdout)).toEqual({ Production: 'Echo.Production', Status: 'running' });
    }
  });

  it('conveyor stop ends the server of one home and removes its records; the other home keeps running', async () => {
    const [first, second] = homes as [string, string];
    const pid = Number(readFileSync(join(first, 'server.pid'), 'utf8'));
    const stopped = await conveyor(['stop', '--home', first], first);
    expect(stopped).toEqual({ code: 0, stdout: `Stopped the Conveyor server of ${first} (pid ${pid})\n`, stderr: '' });
    expect(existsSync(join(first, 'server.url'))).toBe(false);
    expect(existsSync(join(first, 'server.pid'))).toBe(false);
    expect(JSON.parse((await cli(second, ['-x'])).stdout)).toEqual({ Production: 'Echo.Production', Status: 'running' });
    expect(await conveyor(['stop', '--home', first], first)).toEqual({ code: 0, stdout: `No Conveyor server runs for ${first}\n`, stderr: '' });
  });
});
