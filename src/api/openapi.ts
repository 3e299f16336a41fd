/**
 * The OpenAPI 3.1 document of the API, written from the route declarations the server serves (the
 * catalog), and the `GET /openapi.json` route serving it.
 */
import type { FastifyInstance } from 'fastify';
import { openApi } from '../core/contract/monitoring-routes.ts';
import { errorReply, type RouteContract } from '../core/contract/route.ts';
import type { ResolvedApiOptions } from './options.ts';
import { contractScope, serve, type CatalogEntry, type RouteCatalog } from './route-catalog.ts';

interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
  [section: string]: unknown;
}
type JsonSchema = Record<string, unknown>;

/** Plain JSON Schema: TypeBox's markers are not enumerable, so a JSON copy leaves them behind. */
function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function operationId(entry: CatalogEntry): string {
  const words = `${entry.contract.method.toLowerCase()} ${entry.path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');
}

function parameters(contract: RouteContract): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [place, object] of [
    ['path', contract.params],
    ['query', contract.querystring],
  ] as const) {
    if (!object) continue;
    const required = new Set(object.required ?? []);
    for (const [name, schema] of Object.entries(object.properties)) {
      const { description, ...rest } = plain(schema);
      list.push({ name, in: place, required: place === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return list;
}

/** A body the route accepts omitted (an object with no required field) is not required. */
function requestBody(body: RouteContract['body']): JsonSchema | undefined {
  if (!body) return undefined;
  const schema = plain(body);
  const optional = schema.type === 'object' && !(Array.isArray(schema.required) && schema.required.length > 0);
  return { required: !optional, content: { 'application/json': { schema } } };
}

function operation(entry: CatalogEntry): JsonSchema {
  const { contract } = entry;
  const responses: Record<string, unknown> = {};
  for (const [status, reply] of Object.entries(contract.replies)) {
    responses[status] = reply.schema
      ? { description: reply.description, content: { [reply.contentType ?? 'application/json']: { schema: plain(reply.schema) } } }
      : { description: reply.description };
  }
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  responses['401'] ??= { ...error('Missing or wrong credentials'), headers: { 'WWW-Authenticate': { schema: { type: 'string' } } } };
  responses['403'] ??= error(`The user's role is below ${contract.role}`);
  const checked = contract.body ?? contract.querystring ?? contract.params;
  if (checked)
    responses['400'] ??= error(
      'The request does not fit this declaration (unknown field, missing field, wrong type) or the body is not JSON; the text names each problem',
    );
  if (contract.body) responses['413'] ??= error('The body is larger than the limit');
  responses[contract.spec ? '500' : 'default'] ??= error(contract.spec ? 'Any failure: {"error": text}' : 'A failure, with the status of its error code');
  const body = requestBody(contract.body);
  const list = parameters(contract);
  return {
    operationId: operationId(entry),
    summary: contract.summary,
    tags: [contract.tag],
    description: `Needs the role ${contract.role} (or higher).`,
    ...(list.length ? { parameters: list } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

export function buildOpenApi(catalog: RouteCatalog, options: ResolvedApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of catalog.entries) {
    const path = openApiPath(entry.path);
    paths[path] ??= {};
    paths[path][entry.contract.method.toLowerCase()] = operation(entry);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Conveyor production management API',
      version: options.version.version,
      description: [
        options.version.description,
        `Every route under ${options.apiPrefix} is also answered under ${options.apiPrefix}/v1.`,
        `Spec routes answer any failure with HTTP 500 and {"error": text}, except a request that does not fit its declaration (400). The namespace comes from the query, or on POST and PUT from the body (the body wins); default USER.`,
      ].join(' '),
    },
    components: {
      securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
      schemas: { Error: plain(errorReply) },
    },
    security: [{ basic: [] }],
    paths,
  };
}

/** `recordIn` is null for the `/v1` alias, which the document mentions instead of listing. */
export function registerOpenApiRoute(root: FastifyInstance, recordIn: RouteCatalog | null, catalog: RouteCatalog, options: ResolvedApiOptions): void {
  let document: OpenApiDocument | null = null;
  serve(contractScope(root), recordIn, openApi, async () => {
    // Built on first use: by then every route has been registered.
    document ??= buildOpenApi(catalog, options);
    return document;
  });
}
