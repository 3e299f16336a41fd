/**
 * The composition root: one platform instance for one home. Opens the store, the engine and the
 * HTTP API, listens on TCP and on the home's Unix socket (local-mode CLI), and shuts down cleanly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiCatalog, buildApi } from '../api/api.ts';
import { mountPortal } from '../api/portal-mount.ts';
import { listenApi } from '../api/listen.ts';
import { ensureFirstAdmin, UserDirectory } from '../api/users.ts';
import { coordinatorFor } from '../engine/choose-coordinator.ts';
import { Engine } from '../engine/engine.ts';
import { SqlHosts } from '../engine/sql-hosts/sql-hosts.ts';
import { recoverPackageSwaps, swapOwner } from '../engine/migration/package-swap.ts';
import { startTracing } from '../engine/tracing/start-tracing.ts';
import { recordServerAddress } from '../core/server-address.ts';
import { openStore } from '../store/open-store.ts';
import type { ServerConfig } from './config.ts';
import { installExample } from './example.ts';
import { lockHome } from './home-lock.ts';
import { prepareHome } from './home-permissions.ts';
import { plainTextWarning } from './transport-security.ts';

export interface RunningServer {
  config: ServerConfig;
  engine: Engine;
  /** The TCP address actually bound (port 0 picks a free one). */
  url: string;
  socketPath: string;
  /** Re-reads the TLS certificate and key (SIGHUP); false without TLS. Throws, keeping the old pair, when they are unusable. */
  reloadTls(): Promise<boolean>;
  close(): Promise<void>;
}

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

export async function packageVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

export async function startServer(config: ServerConfig, say: (line: string) => void = () => undefined): Promise<RunningServer> {
  await prepareHome(config.home, say);
  // Python code run by this server (workers, migrations) sees the home it serves.
  process.env['CONVEYOR_HOME'] = config.home;
  const unlock = lockHome(config.home);
  const cleanups: Array<() => Promise<void> | void> = [unlock];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    // OTEL_* variables may turn tracing on (docs/engine.md, "Traces"); off, no OpenTelemetry module
    // is loaded. Closed last: the spans of the productions' stop are exported too.
    const tracing = await startTracing();
    if (tracing) {
      cleanups.push(() => tracing.shutdown());
      say(tracing.description);
    }
    const store = await openStore(config.store ? { url: config.store } : { sqlitePath: join(config.home, 'conveyor.db'), durability: config.durability });
    cleanups.push(() => store.close());
    for (const namespace of config.namespaces) await store.namespaces.create(namespace);
    // Before any production starts: a migration a kill interrupted is finished or undone first.
    for (const swap of await recoverPackageSwaps(store, swapOwner(config.home)))
      say(`Recovered the interrupted migration of ${swap.packageDir}: ${swap.outcome}`);
    // Alone on the store, or one node of several sharing it: decided here, once.
    const coordinator = coordinatorFor(store, { leaseMs: config.leaseMs, onError: (error) => console.error('conveyor engine:', error) });
    const sqlHosts = new SqlHosts(config.sqlHosts, (error) => console.error('conveyor SQL host:', error.message));
    cleanups.push(() => sqlHosts.close());
    const engine = await Engine.open(store, {
      interpreter: config.python,
      pythonByProduction: config.pythonByProduction,
      drainTimeoutMs: config.drainTimeoutMs,
      coordinator,
      sqlHosts,
      // The first run comes a minute after start at most: productions start first.
      retention: { intervalMs: config.retentionIntervalMs, firstRunMs: Math.min(60_000, config.retentionIntervalMs) },
    });
    cleanups.push(() => engine.close());
    const example = config.example ? await installExample(engine, store, config.home, say) : null;
    if (example) say(`Installed and started the example production ${example.production}: drop text files into ${example.inbox}`);
    const users = await UserDirectory.open(join(config.home, 'users.json'));
    cleanups.push(() => users.close());
    const firstAdmin = await ensureFirstAdmin(users);
    if (firstAdmin?.generatedPassword) {
      say(`Created the first admin user '${firstAdmin.name}' with password: ${firstAdmin.generatedPassword}`);
      say(`It is shown only this once; change it with: conveyor users reset-password ${firstAdmin.name} (or CONVEYOR_ADMIN_PASSWORD on a fresh home).`);
    }
    const app = await buildApi({
      engine,
      users,
      apiPrefix: config.apiPrefix,
      docsPrefix: config.docsPrefix,
      bodyLimit: config.bodyLimit,
      maxTop: config.maxTop,
      requestTimeoutMs: config.requestTimeoutMs,
      packagesDir: (namespace) => join(config.home, 'packages', namespace),
      documentsDir: (namespace) => join(config.home, 'documents', namespace),
      allowedRoots: config.allowedRoots,
      exportFormat: config.exportFormat,
      loginThrottle: {
        failuresPerUser: config.loginFailuresPerUser,
        failuresPerAddress: config.loginFailuresPerAddress,
        lockoutMs: config.loginLockoutMs,
        lockoutMaxMs: config.loginLockoutMaxMs,
      },
      version: { version: await packageVersion(), description: 'Conveyor production management API' },
    });
    // POST /schemas/import reads a server `path` only in the import folder (default <home>/imports), never the home's own files.
    const schemaFiles = { roots: [config.importFolder], closed: [config.home, config.tlsCert, config.tlsKey].filter(Boolean) };
    await mountPortal(app, engine, { apiPrefix: config.apiPrefix, catalog: apiCatalog(app), schemaFiles });
    const socketPath = join(config.home, 'conveyor.sock');
    const tls = config.tlsCert ? { cert: config.tlsCert, key: config.tlsKey } : undefined;
    const listening = await listenApi(app, { host: config.host, port: config.port, socketPath, requestTimeoutMs: config.requestTimeoutMs, tls });
    cleanups.push(() => listening.close());
    // Which port a server on port 0 took (the local-mode cli starts servers so): recorded in the home.
    if (listening.url) cleanups.push(await recordServerAddress(config.home, listening.url));
    const plainText = plainTextWarning(config);
    if (plainText) say(`Warning: ${plainText}`);
    const reloadTls = async () => (await listening.reloadTls()) !== null;
    return { config, engine, url: listening.url ?? '', socketPath, reloadTls, close };
  } catch (error) {
    await close();
    throw error;
  }
}
