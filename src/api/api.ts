/**
 * The HTTP API: a Fastify app serving the spec routes under the mount prefix (and its `/v1` alias), the
 * beyond-spec routes beside them, the class-document API for remote init, and `/metrics` at the root.
 * Authentication, error replies and JSON parsing are installed once for the whole app.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { installAuth } from './auth.ts';
import { ClassDocumentStore } from './class-documents.ts';
import { installCrossOrigin } from './cross-origin.ts';
import { registerComponentRoutes } from './component-routes.ts';
import { registerControlRoutes } from './control-routes.ts';
import { registerDefinitionRoutes } from './definition-routes.ts';
import { registerNodesRoute } from './nodes-route.ts';
import { registerDocumentRoutes } from './document-routes.ts';
import { frameworkErrorReply, installErrorReplies, installJsonParser } from './error-replies.ts';
import { lazySerializerFactory } from './lazy-serializers.ts';
import { registerMessageSearchRoutes } from './message-search-routes.ts';
import { registerRuleRoutes } from './rule-routes.ts';
import { registerMetrics } from './metrics.ts';
import { registerMonitorRoutes } from './monitor-routes.ts';
import { registerMigrateRoute } from './migrate-route.ts';
import { registerOpenApiRoute } from './openapi.ts';
import { resolveApiOptions, type ApiOptions } from './options.ts';
import { RouteCatalog } from './route-catalog.ts';
import { registerRetentionRoutes } from './retention-routes.ts';
import { registerSpecRoutes } from './spec-routes.ts';
import { transformCompiler } from './transform-compiler.ts';
import { registerUserRoutes } from './user-routes.ts';

export type { ApiOptions } from './options.ts';

/** Extra servers (the Unix socket) routed into an app, closed with it. */
const extraServers = new WeakMap<FastifyInstance, Set<Server>>();
const catalogs = new WeakMap<FastifyInstance, RouteCatalog>();

/**
 * The route catalog of an app built by buildApi: routes served later with `serve(scope, catalog, …)`
 * (e.g. the portal's) appear in `GET /openapi.json`, which is built on its first request.
 */
export function apiCatalog(app: FastifyInstance): RouteCatalog | null {
  return catalogs.get(app) ?? null;
}

export function attachServer(app: FastifyInstance, server: Server): void {
  extraServers.get(app)?.add(server);
}

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const resolved = resolveApiOptions(options);
  const app: FastifyInstance = Fastify({
    // Without a logger of the caller's, warnings and unexpected errors still reach the server's stderr.
    loggerInstance: options.logger ?? pino({ level: 'warn' }, pino.destination(2)),
    bodyLimit: resolved.bodyLimit,
    requestTimeout: resolved.requestTimeoutMs,
    handlerTimeout: resolved.requestTimeoutMs,
    return503OnClosing: true,
    frameworkErrors: frameworkErrorReply,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
  });
  const servers = new Set<Server>();
  extraServers.set(app, servers);
  app.addHook('onClose', async () => {
    await Promise.all(
      [...servers].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  });

  app.decorateRequest('user', undefined);
  installJsonParser(app);
  installErrorReplies(app, { bodyLimit: resolved.bodyLimit, requestTimeoutMs: resolved.requestTimeoutMs, apiPrefix: resolved.apiPrefix });
  installCrossOrigin(app, resolved.corsOrigins);
  installAuth(app, options.users, options.loginThrottle);

  const catalog = new RouteCatalog();
  catalogs.set(app, catalog);
  // Without an explicit compiler, DTL classes become transforms of the engine's DTL.
  const compiler = resolved.classCompiler ?? transformCompiler(options.engine);
  const documents = new ClassDocumentStore(resolved.documentsDir, compiler);
  const { engine } = resolved;

  const managementRoutes = (recordIn: RouteCatalog | null) => async (scope: FastifyInstance) => {
    registerSpecRoutes(scope, engine, resolved, recordIn);
    registerMigrateRoute(scope, engine, resolved, recordIn);
    registerComponentRoutes(scope, engine, recordIn);
    registerDefinitionRoutes(scope, engine, recordIn);
    registerNodesRoute(scope, engine, recordIn);
    registerRetentionRoutes(scope, engine, recordIn);
    registerControlRoutes(scope, engine, recordIn);
    registerMonitorRoutes(scope, engine, recordIn);
    registerMessageSearchRoutes(scope, engine, recordIn);
    registerRuleRoutes(scope, engine, recordIn);
    registerUserRoutes(scope, options.users, recordIn);
    registerOpenApiRoute(scope, recordIn, catalog, resolved);
  };
  await app.register(managementRoutes(catalog), { prefix: resolved.apiPrefix });
  await app.register(managementRoutes(null), { prefix: `${resolved.apiPrefix}/v1` });
  await app.register(async (scope) => registerDocumentRoutes(scope, engine, documents, catalog), { prefix: resolved.docsPrefix });
  registerMetrics(app, app, engine, catalog);
  return app;
}
