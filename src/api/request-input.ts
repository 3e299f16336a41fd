/**
 * The namespace of a request (spec rule 3): the body's `namespace` on POST and PUT when given and not
 * empty, else the query's, else USER. The route declarations put `namespace` in every query and every
 * JSON body that take one, so both are already checked to be strings when this runs. The namespace is
 * resolved once per request into the engine's handle (`engine.namespace(name)`), which checks it.
 */
import type { EngineOperations, NamespaceOperations } from '../engine/namespace-operations.ts';

export const defaultNamespace = 'USER';

/** What a validated request carries, as far as the namespace goes. */
export interface NamespaceCarrier {
  method: string;
  query: unknown;
  body: unknown;
}

function namespaceIn(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null || !('namespace' in part)) return undefined;
  const value = part.namespace;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function chosenNamespace(request: NamespaceCarrier): string {
  const fromBody = request.method === 'POST' || request.method === 'PUT' ? namespaceIn(request.body) : undefined;
  return fromBody ?? namespaceIn(request.query) ?? defaultNamespace;
}

/** The handle of the request's namespace; an unknown namespace is an error naming it. */
export function namespaceOf(request: NamespaceCarrier, engine: EngineOperations): Promise<NamespaceOperations> {
  return engine.namespace(chosenNamespace(request));
}

/** How a wrong value is named in an error: `null`, `an array`, `a number`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
