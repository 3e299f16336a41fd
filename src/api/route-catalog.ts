/**
 * Every API route is added through `addRoute`, which registers it with Fastify and records its
 * description (role, parameters, body and response schemas) in a catalog. The catalog is what
 * `GET /openapi.json` publishes, so the document cannot forget a route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Role } from './users.ts';

export type JsonSchema = Record<string, unknown>;

export interface RouteParameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  schema: JsonSchema;
  required?: boolean;
}

export interface RouteResponse {
  description: string;
  /** The JSON body; absent for an empty body. */
  schema?: JsonSchema;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteDescription {
  method: HTTPMethods;
  /** Relative to the scope's prefix, Fastify syntax (`:name` for path parameters). */
  url: string;
  role: Role;
  /** Spec routes answer every failure with 500 `{error}`. */
  spec: boolean;
  summary: string;
  tag: string;
  parameters?: RouteParameter[];
  body?: { schema: JsonSchema; required: boolean; description?: string };
  responses: Record<number, RouteResponse>;
}

export interface CatalogEntry extends RouteDescription {
  /** The full path as served (prefix included). */
  path: string;
}

export interface ApiRouteConfig {
  role?: Role;
  spec?: boolean;
}

export function routeConfig(request: FastifyRequest): ApiRouteConfig {
  return (request.routeOptions.config ?? {}) as ApiRouteConfig;
}

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export class RouteCatalog {
  readonly entries: CatalogEntry[] = [];
  #seen = new Set<string>();

  /** Records a route once: the `/v1` alias registers the same routes again under another prefix. */
  record(prefix: string, description: RouteDescription): void {
    const path = `${prefix}${description.url}`;
    const key = `${description.method} ${path}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.entries.push({ ...description, path });
  }
}

export function addRoute(scope: FastifyInstance, catalog: RouteCatalog | null, description: RouteDescription, handler: RouteHandler): void {
  catalog?.record(scope.prefix, description);
  const config: ApiRouteConfig = { role: description.role, spec: description.spec };
  scope.route({ method: description.method, url: description.url, config, handler });
}
