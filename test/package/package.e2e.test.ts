/**
 * The package as a user gets it: `npm pack` (its prepack runs `npm run build`), the tarball installed
 * with npm into an empty folder (the one runtime dependency, better-sqlite3, comes from the registry
 * or npm's cache and is built there when no prebuilt binary fits), then the installed
 * `conveyor serve --example` and `cli` run from that folder: no repository file, no tsx, no
 * TypeScript. Slow (npm may compile SQLite: minutes on a busy 2-core machine), hence the long limits.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const npmAvailable = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
const installLimitMs = 15 * 60_000;
const adminPassword = 'package-test-secret';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a user's shell: without the npm_* variables `npm test` sets (an inherited
 * npm_config_* would steer the nested npm) and without our own CONVEYOR_/CLI_/IOP_ settings.
 */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(npm_|CLI_|IOP_|CONVEYOR_)/i.test(name)) env[name] = value;
  return { ...env, ...extra };
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? userEnv(), timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function expectSuccess(result: Run, what: string): void {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
}

describe.skipIf(!npmAvailable)('the packed tarball, installed into an empty folder (needs npm on the PATH to pack and install; skipped without it)', () => {
  const work = tempDir('conveyor-package-');
  const installDir = join(work.path, 'app');
  const bin = (name: string) => join(installDir, 'node_modules', '.bin', name);
  let tarball = '';
  let tarballFiles: string[] = [];
  const servers: ChildProcess[] = [];

  beforeAll(
    async () => {
      const packed = await run('npm', ['pack', '--pack-destination', work.path, '--json'], { cwd: repoRoot, timeoutMs: 5 * 60_000 });
      expectSuccess(packed, 'npm pack');
      // The build's own output comes first on stdout; the JSON report is the last thing printed.
      const report = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
      tarball = join(work.path, report[0]!.filename);
      tarballFiles = report[0]!.files.map((file) => file.path);
      mkdirSync(installDir);
      // --prefix: into this folder even when a folder above it holds a package.json or node_modules.
      const installed = await run('npm', ['install', '--prefix', installDir, '--no-audit', '--no-fund', '--prefer-offline', tarball], {
        cwd: installDir,
        timeoutMs: installLimitMs,
      });
      expectSuccess(installed, `npm install ${tarball}`);
    },
    installLimitMs + 5 * 60_000,
  );

  afterAll(async () => {
    for (const server of servers) {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
    }
    work.remove();
  }, 60_000);

  it('holds the compiled build and what it reads at run time, and neither the sources nor the tests', () => {
    for (const file of [
      'package.json',
      'bin/conveyor.js',
      'bin/cli.js',
      'dist/server/main.mjs',
      'dist/server/main.mjs.map',
      'dist/cli/main.mjs',
      'dist/portal/index.html',
      'python/conveyor_host/__main__.py',
      'python/iop/__init__.py',
      'examples/file-routing/settings.py',
    ]) {
      expect(tarballFiles).toContain(file);
    }
    expect(tarballFiles.filter((file) => /^(src|test|bench|web|scripts|docs|python\/tests)\//.test(file) || file.endsWith('.ts'))).toEqual([]);
    expect(tarballFiles.filter((file) => file.includes('__pycache__'))).toEqual([]);
    // What the bundles leave out is installed as a dependency; the build tools are not.
    expect(existsSync(join(installDir, 'node_modules', 'better-sqlite3'))).toBe(true);
    for (const tool of ['tsx', 'typescript', 'esbuild', 'vite']) expect(existsSync(join(installDir, 'node_modules', tool)), tool).toBe(false);
  });

  it('runs conveyor serve --example from the installed folder: the example routes a file, the cli and the portal answer', async () => {
    const home = join(work.path, 'home-serve');
    const server = spawn(bin('conveyor'), ['serve', '--example', '--home', home, '--port', '0'], {
      cwd: installDir,
      env: userEnv({ CONVEYOR_ADMIN_PASSWORD: adminPassword }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    servers.push(server);
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const api = await eventually(
      () => {
        if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}:\n${output}`);
        return /API: (http:\/\/\S+)\/api\/iop/.exec(output)?.[1];
      },
      'the installed server to listen',
      60_000,
    );
    expect(output).toContain('Installed and started the example production Example.FileRouting');

    const cliEnv = userEnv({ CONVEYOR_HOME: home });
    const status = await run(bin('cli'), ['-x'], { cwd: installDir, env: cliEnv, timeoutMs: 60_000 });
    expectSuccess(status, 'cli -x');
    expect(JSON.parse(status.stdout)).toEqual({ Production: 'Example.FileRouting', Status: 'running' });
    const version = await run(bin('cli'), ['-v'], { cwd: installDir, env: cliEnv, timeoutMs: 60_000 });
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version);

    // The Python components run from the installed package's SDK.
    writeFileSync(join(home, 'python-example', 'in', 'note.txt'), 'urgent: the package works');
    await eventually(() => existsSync(join(home, 'python-example', 'out', 'urgent', 'note.txt')), 'the example to route the file to out/urgent', 60_000);

    const portal = await httpCall({ url: api }, 'GET', '/portal/');
    expect(portal.status).toBe(200);
    expect(portal.text).toContain('<title>Conveyor portal</title>');
  }, 180_000);

  it('a local-mode cli starts the installed server of a home on its own', async () => {
    const home = join(work.path, 'home-auto');
    const env = userEnv({ CONVEYOR_HOME: home, CONVEYOR_ADMIN_PASSWORD: adminPassword });
    try {
      const list = await run(bin('cli'), ['-l'], { cwd: installDir, env, timeoutMs: 120_000 });
      expectSuccess(list, 'cli -l on a home without a server');
      expect(JSON.parse(list.stdout)).toEqual({});
      expect(list.stderr).toContain('starting one in the background');
    } finally {
      const pidFile = join(home, 'server.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8'));
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGTERM');
        await eventually(() => !existsSync(join(home, 'conveyor.sock')), 'the auto-started server to stop', 30_000);
      }
    }
  }, 180_000);
});
