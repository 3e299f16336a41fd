/**
 * Starts the portal test server (portal-server-main.ts) on a fresh home as a child process, and
 * uploads the orders fixture package through the real `PUT /migrate`.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCall, type HttpReply } from '../../support/server-process.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const fixtureDir = fileURLToPath(new URL('../fixtures/orders', import.meta.url));
export const adminPassword = 'portal-admin-pw';

export interface PortalServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  home: string;
  /** An API call as the admin, `path` relative to `/api/iop`. */
  api(method: string, path: string, body?: unknown): Promise<HttpReply>;
  output(): string;
  stop(): Promise<void>;
}

export async function startPortalServer(home: string): Promise<PortalServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/portal/support/portal-server-main.ts', home], {
    cwd: repoRoot,
    env: { ...process.env, CONVEYOR_ADMIN_PASSWORD: adminPassword },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`portal server did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /API: (http:\/\/[^/\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`portal server exited with ${code}:\n${output}`));
    });
  });
  const headers = { authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}` };
  return {
    url,
    home,
    api: (method, path, body) => httpCall({ url, headers }, method, `/api/iop${path}`, body),
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function migrateFixture(server: PortalServer): Promise<void> {
  const names = (await readdir(fixtureDir)).filter((name) => name.endsWith('.py'));
  const body = await Promise.all(names.map(async (name) => ({ name, data: await readFile(join(fixtureDir, name), 'utf8') })));
  const reply = await server.api('PUT', '/migrate', { package: 'orders', body });
  if (reply.status !== 200) throw new Error(`migrate failed: ${reply.status} ${reply.text}`);
}
