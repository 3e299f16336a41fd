/** Builds the API over a FakeEngine in a temporary home, with one user per role. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApi } from '../../../src/api/api.ts';
import type { ApiOptions } from '../../../src/api/options.ts';
import { UserDirectory, type Role } from '../../../src/api/users.ts';
import { FakeEngine } from './fake-engine.ts';

export interface Harness {
  app: FastifyInstance;
  engine: FakeEngine;
  home: string;
  users: UserDirectory;
  auth(role: Role): { authorization: string };
  close(): Promise<void>;
}

export const passwords: Record<Role, string> = { viewer: 'view-pw', operator: 'op-pw', admin: 'admin-pw' };

export function basic(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
}

export async function createHarness(overrides: Partial<ApiOptions> = {}): Promise<Harness> {
  const home = await mkdtemp(join(tmpdir(), 'conveyor-api-'));
  const users = await UserDirectory.open(join(home, 'users.json'));
  for (const role of ['viewer', 'operator', 'admin'] as const) await users.set(role, passwords[role], role);
  const engine = new FakeEngine();
  const app = await buildApi({
    engine,
    users,
    packagesDir: (namespace) => join(home, 'packages', namespace),
    documentsDir: (namespace) => join(home, 'documents', namespace),
    allowedRoots: [home],
    version: { version: '1.0.0', description: 'Conveyor production management API' },
    logger: pino({ level: 'silent' }),
    ...overrides,
  });
  await app.ready();
  return {
    app,
    engine,
    home,
    users,
    auth: (role) => ({ authorization: basic(role, passwords[role]) }),
    close: async () => {
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
