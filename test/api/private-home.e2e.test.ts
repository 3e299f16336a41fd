/**
 * A private home, end to end: a real `conveyor serve` on a fresh home creates it 0700 and every file it
 * writes 0600 (store and WAL, users, uploaded package, the local-mode log), the socket stays usable by
 * the owner; a home other users can write is refused; one they can read is served with a warning.
 */
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalTransport } from '../../src/cli/local-server.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const fixture = fileURLToPath(new URL('./fixtures/echo', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const folders = [tempDir('conveyor-private-')];
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const server of servers) await server.kill();
  for (const folder of folders) folder.remove();
});

function mode(path: string): number {
  return lstatSync(path).mode & 0o777;
}

/** Every file and folder under `root` (the socket aside), with its mode. */
function modesUnder(root: string): Array<{ path: string; mode: number; folder: boolean }> {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isSocket())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path: relative(root, path), mode: mode(path), folder: entry.isDirectory() };
    });
}

async function packageFiles(): Promise<Array<{ name: string; data: string }>> {
  const names = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  return Promise.all(
    names.map(async (entry) => ({
      name: relative(fixture, join(entry.parentPath, entry.name)),
      data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
    })),
  );
}

/** Runs `conveyor serve` on a home expected to be refused; returns its exit code and output. */
function serveRefused(home: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', 'serve', '--home', home, '--port', '0'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('a fresh home', () => {
  it('is created 0700 and everything the server writes in it is owner-only; the socket works', async () => {
    const home = join(folders[0]!.path, 'fresh', 'home');
    const server = await startServerProcess(home, [], { CONVEYOR_ADMIN_PASSWORD: 'pw' });
    servers.push(server);
    const migrated = await server.local('PUT', '/api/iop/migrate', { package: 'echo', body: await packageFiles() });
    expect(migrated.status).toBe(200);
    const started = await server.local('POST', '/api/iop/start', { production: 'Api.Test.Production' });
    expect(started.status, started.text).toBe(200);
    expect((await server.local('GET', '/api/iop/log?top=5')).status).toBe(200);

    expect(mode(home)).toBe(0o700);
    for (const name of ['conveyor.db', 'conveyor.db-wal', 'conveyor.db-shm', 'users.json', 'server.pid'])
      expect([name, mode(join(home, name))]).toEqual([name, 0o600]);
    expect(mode(server.socketPath)).toBe(0o600);
    const written = modesUnder(home);
    expect(written.some((entry) => entry.path === join('packages', 'USER', 'echo', 'settings.py'))).toBe(true);
    for (const entry of written) expect([entry.path, entry.mode]).toEqual([entry.path, entry.folder ? 0o700 : 0o600]);
  });

  it('started by the local-mode cli gets a 0700 home and a 0600 server.log', async () => {
    const home = join(folders[0]!.path, 'cli-home');
    const transport = createLocalTransport({ home, autoStart: true, notify: () => undefined, env: { ...process.env, CONVEYOR_ADMIN_PASSWORD: 'pw' } });
    try {
      const reply = await transport.request({ method: 'GET', path: '/api/iop/status' });
      expect(reply.status).toBe(200);
    } finally {
      transport.close();
      const pid = Number(readFileSync(join(home, 'server.pid'), 'utf8'));
      process.kill(pid, 'SIGTERM');
      await eventually(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 'the background server to stop');
    }
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'server.log'))).toBe(0o600);
  });
});

describe('an existing home', () => {
  it('that other users can write is refused with the folder and the fix', async () => {
    const home = join(folders[0]!.path, 'shared');
    mkdirSync(home);
    chmodSync(home, 0o777);
    const { code, output } = await serveRefused(home);
    expect(code).toBe(1);
    expect(output).toContain(`Other users can write the home ${home} (mode 777)`);
    expect(output).toContain(`chmod 700 ${home}`);
    expect(readdirSync(home)).toEqual([]);
  });

  it('that other users can read is served with a warning, and files an older server left readable become 0600', async () => {
    const home = join(folders[0]!.path, 'readable');
    mkdirSync(home);
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'users.json'), '{"users": []}\n', { mode: 0o644 });
    chmodSync(join(home, 'users.json'), 0o644);
    const server = await startServerProcess(home, [], { CONVEYOR_ADMIN_PASSWORD: 'pw' });
    servers.push(server);
    expect(server.output()).toContain(`Warning: Other users can read the home ${home} (mode 755): chmod 700 ${home} makes it private`);
    expect(server.output()).toContain(`Warning: other users could read ${join(home, 'users.json')}; made it private (mode 600)`);
    expect(mode(join(home, 'users.json'))).toBe(0o600);
    expect((await server.local('GET', '/api/iop/status')).status).toBe(200);
  });
});
