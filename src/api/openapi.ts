/**
 * The OpenAPI 3.1 document of the API, built from the route catalog (so every route is in it), and
 * the `GET /openapi.json` route serving it.
 */
import type { FastifyInstance } from 'fastify';
import type { ResolvedApiOptions } from './options.ts';
import { addRoute, type CatalogEntry, type RouteCatalog } from './route-catalog.ts';
import { errorSchema } from './schemas.ts';

type OpenApiDocument = Record<string, unknown>;

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function operationId(entry: CatalogEntry): string {
  const words = `${entry.method.toLowerCase()} ${entry.path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');
}

function operation(entry: CatalogEntry): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(entry.responses)) {
    responses[status] = response.schema
      ? { description: response.description, content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }
      : { description: response.description };
  }
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  responses['401'] ??= { ...error('Missing or wrong credentials'), headers: { 'WWW-Authenticate': { schema: { type: 'string' } } } };
  responses['403'] ??= error(`The user's role is below ${entry.role}`);
  if (entry.body) responses['400'] ??= error('The body is not JSON');
  if (entry.body) responses['413'] ??= error('The body is larger than the limit');
  responses[entry.spec ? '500' : 'default'] ??= error(entry.spec ? 'Any failure: {"error": text}' : 'A failure, with the status of its error code');
  return {
    operationId: operationId(entry),
    summary: entry.summary,
    tags: [entry.tag],
    description: `Needs the role ${entry.role} (or higher).`,
    ...(entry.parameters?.length ? { parameters: entry.parameters.map((p) => ({ name: p.name, in: p.in, description: p.description, required: p.required ?? false, schema: p.schema })) } : {}),
    ...(entry.body
      ? { requestBody: { required: entry.body.required, ...(entry.body.description ? { description: entry.body.description } : {}), content: { 'application/json': { schema: entry.body.schema } } } }
      : {}),
    responses,
  };
}

export function buildOpenApi(catalog: RouteCatalog, options: ResolvedApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of catalog.entries) {
    const path = openApiPath(entry.path);
    paths[path] ??= {};
    paths[path][entry.method.toLowerCase()] = operation(entry);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Conveyor production management API',
      version: options.version.version,
      description: [
        options.version.description,
        `Every route under ${options.apiPrefix} is also answered under ${options.apiPrefix}/v1.`,
        `Spec routes answer any failure with HTTP 500 and {"error": text}. The namespace comes from the query, or on POST and PUT from the body (the body wins); default USER.`,
      ].join(' '),
    },
    components: {
      securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
      schemas: { Error: errorSchema },
    },
    security: [{ basic: [] }],
    paths,
  };
}

/** `recordIn` is null for the `/v1` alias, which the document mentions instead of listing. */
export function registerOpenApiRoute(scope: FastifyInstance, recordIn: RouteCatalog | null, catalog: RouteCatalog, options: ResolvedApiOptions): void {
  let document: OpenApiDocument | null = null;
  addRoute(
    scope,
    recordIn,
    {
      method: 'GET',
      url: '/openapi.json',
      role: 'viewer',
      spec: false,
      tag: 'Monitoring',
      summary: 'This OpenAPI 3.1 document',
      responses: { 200: { description: 'OpenAPI document', schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
    },
    async () => {
      // Built on first use: by then every route has been registered.
      document ??= buildOpenApi(catalog, options);
      return document;
    },
  );
}
