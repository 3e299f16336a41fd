/**
 * A Conveyor server for the portal's browser tests: the real store (SQLite in the home), the real
 * engine and API, with the portal mounted (src/api/portal-mount.ts). It composes the same parts as
 * `conveyor serve` plus the portal, until the server mounts the portal itself.
 * Usage: node --import tsx test/portal/support/portal-server-main.ts <home>
 * Prints `API: http://127.0.0.1:PORT/api/iop` once listening; the first admin is admin / $CONVEYOR_ADMIN_PASSWORD.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { apiCatalog, buildApi } from '../../../src/api/api.ts';
import { listenApi } from '../../../src/api/listen.ts';
import { mountPortal } from '../../../src/api/portal-mount.ts';
import { ensureFirstAdmin, UserDirectory } from '../../../src/api/users.ts';
import { Engine } from '../../../src/engine/engine.ts';
import { openStore } from '../../../src/store/open-store.ts';

const home = process.argv[2];
if (!home) throw new Error('usage: portal-server-main.ts <home>');
await mkdir(home, { recursive: true });
const store = await openStore({ sqlitePath: join(home, 'conveyor.db'), durability: 'normal' });
const engine = await Engine.open(store, {});
const users = await UserDirectory.open(join(home, 'users.json'));
await ensureFirstAdmin(users);
const app = await buildApi({
  engine,
  users,
  packagesDir: (namespace) => join(home, 'packages', namespace),
  documentsDir: (namespace) => join(home, 'documents', namespace),
  allowedRoots: [home],
  version: { version: '0.0.0-test', description: 'Conveyor portal test server' },
});
await mountPortal(app, engine, { catalog: apiCatalog(app) });
const listening = await listenApi(app, { host: '127.0.0.1', port: 0, socketPath: join(home, 'conveyor.sock') });
process.stdout.write(`API: ${listening.url}/api/iop\n`);

const shutdown = async () => {
  await listening.close();
  await engine.close();
  await store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
