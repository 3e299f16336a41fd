/**
 * The routes of the server's own OpenAPI document, read at run time so a new route is covered the day
 * it is added: method, path template, the role it needs, its parameters and its request body schema
 * (with `$ref`s to the document's components resolved).
 */
export type JsonSchema = Record<string, unknown>;

export type Role = 'viewer' | 'operator' | 'admin';

export interface RouteParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface ApiRoute {
  method: string;
  /** The OpenAPI path template, e.g. `/api/iop/users/{name}`. */
  template: string;
  role: Role;
  parameters: RouteParameter[];
  body?: { schema: JsonSchema; required: boolean };
}

interface OpenApiOperation {
  description?: string;
  parameters?: Array<{ name: string; in: RouteParameter['in']; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  'x-role'?: string;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const methods = new Set(['get', 'put', 'post', 'delete', 'patch']);
const roles: readonly Role[] = ['viewer', 'operator', 'admin'];

/** The role an operation needs: an `x-role` extension, else the "Needs the role X" of its description. */
function roleOf(operation: OpenApiOperation, where: string): Role {
  const stated = operation['x-role'] ?? /\brole (viewer|operator|admin)\b/.exec(operation.description ?? '')?.[1];
  if (!stated || !(roles as readonly string[]).includes(stated)) throw new Error(`${where}: the OpenAPI document does not say which role it needs`);
  return stated as Role;
}

/** Inlines `#/components/schemas/X` references (the documents are small and not recursive). */
function resolve(schema: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 50) throw new Error('The OpenAPI document has a reference cycle');
  if (Array.isArray(schema)) return schema.map((entry) => resolve(entry, components, depth + 1));
  if (schema === null || typeof schema !== 'object') return schema;
  const record = schema as Record<string, unknown>;
  const ref = record.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const target = components[ref.slice('#/components/schemas/'.length)];
    if (!target) throw new Error(`Unresolved reference ${ref}`);
    return resolve(target, components, depth + 1);
  }
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, resolve(value, components, depth + 1)]));
}

export function routesOf(document: OpenApiDocument): ApiRoute[] {
  const components = document.components?.schemas ?? {};
  const routes: ApiRoute[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!methods.has(method)) continue;
      const where = `${method.toUpperCase()} ${template}`;
      const media = operation.requestBody?.content ? Object.values(operation.requestBody.content)[0] : undefined;
      routes.push({
        method: method.toUpperCase(),
        template,
        role: roleOf(operation, where),
        parameters: (operation.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required ?? p.in === 'path',
          schema: resolve(p.schema ?? {}, components) as JsonSchema,
        })),
        ...(operation.requestBody
          ? { body: { schema: resolve(media?.schema ?? {}, components) as JsonSchema, required: operation.requestBody.required ?? false } }
          : {}),
      });
    }
  }
  return routes;
}

export function routeKey(route: Pick<ApiRoute, 'method' | 'template'>): string {
  return `${route.method} ${route.template}`;
}

export function roleAtLeast(role: Role, needed: Role): boolean {
  return roles.indexOf(role) >= roles.indexOf(needed);
}

/** The JSON types a schema allows, from `type` and the branches of `anyOf` / `oneOf` (TypeBox unions). */
export function typesOf(schema: JsonSchema): string[] {
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const branches = [...((schema.anyOf as JsonSchema[] | undefined) ?? []), ...((schema.oneOf as JsonSchema[] | undefined) ?? [])];
  return [...new Set([...own, ...branches.flatMap(typesOf)])];
}

/** The body's object schema when it is one: its declared properties, required names and openness. */
export function objectShape(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: string[]; closed: boolean } | null {
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
  if (!isObject || typeof schema.properties !== 'object' || schema.properties === null) return null;
  return {
    properties: schema.properties as Record<string, JsonSchema>,
    required: Array.isArray(schema.required) ? (schema.required as string[]) : [],
    closed: schema.additionalProperties === false,
  };
}
