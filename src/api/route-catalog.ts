/**
 * Serving a declared route (src/core/contract): `serve` registers it with Fastify — the request
 * schemas validate (request-validation.ts), the reply schemas serialize, the handler is typed by the
 * TypeBox type provider — and records the declaration in a catalog, which `GET /openapi.json`
 * publishes. A route cannot be served without being documented, nor documented differently.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { RouteContract } from '../core/contract/route.ts';
import { RequestShapeError, requestValidator } from './request-validation.ts';
import type { Role } from './users.ts';

export interface CatalogEntry {
  contract: RouteContract;
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

export class RouteCatalog {
  readonly entries: CatalogEntry[] = [];
  #seen = new Set<string>();

  /** Records a route once: the `/v1` alias registers the same routes again under another prefix. */
  record(prefix: string, contract: RouteContract): void {
    const path = `${prefix}${contract.path}`;
    const key = `${contract.method} ${path}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.entries.push({ contract, path });
  }
}

/** A Fastify scope typed by the TypeBox provider (stack.md G7: one per `register` scope). */
export type ContractScope = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

const checkedScopes = new WeakSet<FastifyInstance>();

/** The scope, typed, and checking requests with request-validation.ts (set once per scope, inherited below it). */
export function contractScope(scope: FastifyInstance): ContractScope {
  if (!checkedScopes.has(scope)) {
    scope.setValidatorCompiler(requestValidator);
    checkedScopes.add(scope);
  }
  return scope.withTypeProvider<TypeBoxTypeProvider>();
}

type JsonReplies<C extends RouteContract> = {
  [Status in keyof C['replies']]: C['replies'][Status] extends { schema: infer S }
    ? C['replies'][Status] extends { contentType: string }
      ? undefined
      : S
    : undefined;
};

/** The Fastify schema a declaration stands for: what the type provider reads to type the handler. */
export interface SchemaOf<C extends RouteContract> {
  querystring: C['querystring'];
  params: C['params'];
  body: C['body'];
  response: JsonReplies<C>;
}

export type ContractHandler<C extends RouteContract> = RouteHandlerMethod<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  RouteGenericInterface,
  ContextConfigDefault,
  SchemaOf<C>,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** The reply schemas Fastify serializes with: the JSON ones (a text reply such as /metrics is sent as is). */
function responseSchemas(contract: RouteContract): Record<number, unknown> {
  const schemas: Record<number, unknown> = {};
  for (const [status, reply] of Object.entries(contract.replies)) {
    if (reply.schema && reply.contentType === undefined) schemas[Number(status)] = reply.schema;
  }
  return schemas;
}

async function refuseNullBody(request: FastifyRequest): Promise<void> {
  if (request.body === null)
    throw new RequestShapeError(
      `The body of ${request.method} ${request.routeOptions.url ?? request.url} is null; send the declared JSON, or no body where it may be omitted`,
    );
}

export function serve<C extends RouteContract>(scope: ContractScope, catalog: RouteCatalog | null, contract: C, handler: ContractHandler<C>): void {
  catalog?.record(scope.prefix, contract);
  const config: ApiRouteConfig = { role: contract.role, spec: contract.spec };
  const schema = {
    ...(contract.querystring ? { querystring: contract.querystring } : {}),
    ...(contract.params ? { params: contract.params } : {}),
    ...(contract.body ? { body: contract.body } : {}),
    response: responseSchemas(contract),
  };
  scope.route<RouteGenericInterface, ContextConfigDefault, SchemaOf<C>>({
    method: contract.method,
    url: contract.path,
    config,
    // The same schemas as SchemaOf<C>, minus the absent parts (Fastify warns about a key set to undefined).
    schema: schema as unknown as SchemaOf<C>,
    // A body may be omitted, but a JSON `null` is a body that is not the declared object.
    ...(contract.body ? { preValidation: refuseNullBody } : {}),
    handler,
  });
}
