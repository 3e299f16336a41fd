/**
 * The real `conveyor serve` process on a fresh home (first admin: admin / adminPassword), with an
 * admin API helper, and the orders fixture package uploaded through the real `PUT /migrate`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCall, startServerProcess, type HttpReply } from '../../support/server-process.ts';

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
  const server = await startServerProcess(home, [], { CONVEYOR_ADMIN_PASSWORD: adminPassword });
  const headers = { authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}` };
  return {
    url: server.url,
    home,
    api: (method, path, body) => httpCall({ url: server.url, headers }, method, `/api/iop${path}`, body),
    output: server.output,
    stop: () => server.kill(),
  };
}

export async function migrateFixture(server: PortalServer): Promise<void> {
  const names = (await readdir(fixtureDir)).filter((name) => name.endsWith('.py'));
  const body = await Promise.all(names.map(async (name) => ({ name, data: await readFile(join(fixtureDir, name), 'utf8') })));
  const reply = await server.api('PUT', '/migrate', { package: 'orders', body });
  if (reply.status !== 200) throw new Error(`migrate failed: ${reply.status} ${reply.text}`);
}
