/**
 * How one HTTP route is declared, once: method, path, role, the TypeBox schemas of its query, path
 * parameters, body and replies. The server validates requests, types its handlers, serializes replies
 * and writes `GET /openapi.json` from these declarations; `src/client` and the portal take their types
 * from them. Pure (no `node:` imports): the portal bundles it.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';

export type Role = 'viewer' | 'operator' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ReplyContract {
  description: string;
  /** The JSON body; absent for an empty body. */
  schema?: TSchema;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteContract {
  method: HttpMethod;
  /** Relative to the mount prefix, Fastify syntax (`:name` for path parameters). */
  path: string;
  role: Role;
  /** A route of the spec's table: every failure answers 500 `{error}` (validation 400 and auth aside). */
  spec: boolean;
  tag: string;
  summary: string;
  querystring?: TObject;
  params?: TObject;
  /** An object body with no required field may be omitted: it then reads as `{}`. */
  body?: TSchema;
  /** The success replies by status. */
  replies: Record<number, ReplyContract>;
}

/** Declares a route; `const` keeps the literal schemas, so the types below stay exact. */
export function route<const C extends RouteContract>(contract: C): C {
  return contract;
}

type SchemaStatic<S> = S extends TSchema ? Static<S> : undefined;

export type QueryOf<C extends RouteContract> = SchemaStatic<C['querystring']>;
export type ParamsOf<C extends RouteContract> = SchemaStatic<C['params']>;
export type BodyOf<C extends RouteContract> = SchemaStatic<C['body']>;
/** What a 200 (or the first success status) carries; `undefined` for an empty body. */
export type ReplyOf<C extends RouteContract> = C['replies'] extends { 200: { schema: infer S } }
  ? SchemaStatic<S>
  : C['replies'] extends { 201: { schema: infer S } }
    ? SchemaStatic<S>
    : undefined;

/** A JSON object whose fields are all listed: anything else is refused (requests) or dropped (replies). */
export function closed<const P extends TProperties>(properties: P, description?: string): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
}

/** A value passed through as it is (free JSON: a message body, a schema document). */
export const anyJson = Type.Unknown();

export const namespaceField = Type.Optional(Type.String({ description: 'Namespace (default USER). On POST and PUT a body value wins over the query.' }));

/** The query of a route that works on no namespace: nothing may be given. */
export const noQuery = closed({});

/** The query of a route: `namespace` plus the route's own parameters. */
export function namespaceQuery<const P extends TProperties>(properties: P = {} as P) {
  return closed({ namespace: namespaceField, ...properties });
}

/** The JSON body of a POST or PUT: the route's fields plus `namespace` (spec rule 3). */
export function namespaceBody<const P extends TProperties>(properties: P = {} as P, description?: string) {
  return closed({ ...properties, namespace: namespaceField }, description);
}

/** Every error body: the text, and the stable code on Conveyor's own failures. */
export const errorReply = Type.Object({ error: Type.String({ minLength: 1 }), code: Type.Optional(Type.String()) }, { additionalProperties: false });

export function ok<const S extends TSchema>(description: string, schema: S) {
  return { 200: { description, schema } } as const;
}

/**
 * The common part of a beyond-spec route of a namespace's documents (DTL, rules): tag, role, the
 * namespace query and one 200 reply. A route adds its params and body to it.
 */
export function documentRoute<const M extends HttpMethod, const R extends Role, const S extends TSchema>(
  tag: string,
  method: M,
  path: string,
  role: R,
  summary: string,
  reply: string,
  schema: S,
) {
  return { method, path, role, spec: false, tag, summary, querystring: namespaceQuery(), replies: ok(reply, schema) } as const;
}

/** A path parameter (always a non-empty string; the route checks its meaning). */
export function pathText(description: string) {
  return Type.String({ minLength: 1, description });
}
