/**
 * Mounts the management portal on an API app: its routes under the API prefix (and the `/v1` alias),
 * the built files (`dist/portal`, from `npm run build`) under `/portal/`
 * without authentication (the page signs in against the API itself), and `/` redirecting there.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-replies.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { registerPortalRoutes } from './portal-routes.ts';
import { noServerFileAccess, type ServerFileAccess } from './server-file-access.ts';
import type { RouteCatalog } from './route-catalog.ts';

export const defaultPortalDir = fileURLToPath(new URL('../../dist/portal', import.meta.url));
export const portalPath = '/portal/';

export interface PortalMountOptions {
  /** The API mount prefix (default `/api/iop`). */
  apiPrefix?: string;
  /** The built portal (default `<package>/dist/portal`). */
  portalDir?: string;
  /** Where the routes are recorded for `GET /openapi.json`. */
  catalog?: RouteCatalog | null;
  /** Where a `path` of POST /schemas/import may read (server-file-access.ts). Default: nowhere, only `schema` documents. */
  schemaFiles?: ServerFileAccess;
}

/** Call before `app.ready()` / `listen()`. */
export async function mountPortal(app: FastifyInstance, engine: EngineOperations, options: PortalMountOptions = {}): Promise<void> {
  const apiPrefix = options.apiPrefix ?? '/api/iop';
  const schemaFiles = options.schemaFiles ?? noServerFileAccess;
  await app.register(async (scope) => registerPortalRoutes(scope, engine, options.catalog ?? null, schemaFiles), { prefix: apiPrefix });
  await app.register(async (scope) => registerPortalRoutes(scope, engine, null, schemaFiles), { prefix: `${apiPrefix}/v1` });

  const root = options.portalDir ?? defaultPortalDir;
  app.get('/', (_request, reply) => reply.redirect(portalPath));
  app.get('/portal', (_request, reply) => reply.redirect(portalPath));
  if (existsSync(root)) {
    await app.register(fastifyStatic, { root, prefix: portalPath, index: ['index.html'] });
  } else {
    app.get(`${portalPath}*`, (_request, reply) =>
      sendError(reply, 404, { error: `The portal is not built (no ${root}): run npm run build`, code: 'ERR_NOT_AVAILABLE' }),
    );
  }
}
