/**
 * Reading what a request carries: the JSON body as an object, the namespace (query or body, the body
 * winning on POST and PUT), and typed fields with errors a person can act on.
 */
import type { FastifyRequest } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import type { EngineApi } from '../engine/engine-api.ts';

export const defaultNamespace = 'USER';

export type JsonObject = Record<string, unknown>;

/** An omitted body, an empty body and `{}` all read as `{}`. */
export function bodyObject(request: FastifyRequest): JsonObject {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `The request body of ${request.method} ${routePath(request)} must be a JSON object`);
  }
  return body as JsonObject;
}

export function queryObject(request: FastifyRequest): Record<string, string | string[] | undefined> {
  return (request.query ?? {}) as Record<string, string | string[] | undefined>;
}

function routePath(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url.split('?')[0] ?? request.url;
}

/** A query parameter given once (a repeated parameter is ambiguous and refused). */
export function queryString(request: FastifyRequest, name: string): string | undefined {
  const value = queryObject(request)[name];
  if (Array.isArray(value)) throw new ConveyorError('ERR_INVALID_INPUT', `The query parameter ${name} is given ${value.length} times; give it once`);
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The namespace of a request: the body's `namespace` on POST and PUT when present, else the query's,
 * else USER. Checked against the engine: an unknown namespace is an error.
 */
export async function requestNamespace(request: FastifyRequest, engine: EngineApi): Promise<string> {
  let namespace = queryString(request, 'namespace');
  if (request.method === 'POST' || request.method === 'PUT') {
    const fromBody = bodyObject(request).namespace;
    if (fromBody !== undefined && fromBody !== null && fromBody !== '') {
      if (typeof fromBody !== 'string') throw new ConveyorError('ERR_INVALID_INPUT', `namespace must be a string, not ${describe(fromBody)}`);
      namespace = fromBody;
    }
  }
  namespace ??= defaultNamespace;
  await engine.assertNamespace(namespace);
  return namespace;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export function optionalString(body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ConveyorError('ERR_INVALID_INPUT', `${field} must be a string, not ${describe(value)}`);
  return value;
}

export function requiredString(body: JsonObject, field: string, purpose: string): string {
  const value = optionalString(body, field);
  if (value === undefined) throw new ConveyorError('ERR_INVALID_INPUT', `${field} is required: ${purpose}`);
  return value;
}

export function optionalBoolean(body: JsonObject, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'boolean') throw new ConveyorError('ERR_INVALID_INPUT', `${field} must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

/** A non-negative integer query parameter, or undefined when absent. */
export function queryInteger(request: FastifyRequest, name: string): number | undefined {
  const text = queryString(request, name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new ConveyorError('ERR_INVALID_INPUT', `${name} must be a non-negative integer, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}
