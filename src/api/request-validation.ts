/**
 * Checks each request against its route's declaration (src/core/contract) before the handler runs.
 * Unknown fields, missing fields and wrong types are refused with a 400 whose text names them all.
 * Query and path values arrive as text and are converted (`top=3` → 3); a JSON body is not
 * converted: `"production": 5` is a wrong type, not "5". An omitted body of a route whose body
 * fields are all optional reads as `{}` (spec: "body may be omitted").
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

/** A request that does not fit its route's declaration; error-replies.ts answers it with 400. */
export class RequestShapeError extends Error {
  readonly statusCode = 400;
  readonly code = 'ERR_INVALID_INPUT';

  constructor(message: string) {
    super(message);
    this.name = 'RequestShapeError';
  }
}

const options = { strict: false, allErrors: true, verbose: true, removeAdditional: false, useDefaults: false } as const;
const bodyChecker = new Ajv2020({ ...options, coerceTypes: false });
const textChecker = new Ajv2020({ ...options, coerceTypes: true });

type Part = 'body' | 'querystring' | 'params' | 'headers';

const partNames: Record<Part, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** The field an error is about: `production`, `body[2].name`, `definition.items[0].enabled`. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
  return path;
}

function within(field: string, name: string): string {
  return field === '' ? name : `${field}.${name}`;
}

function typeText(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

function valueAt(data: unknown, error: ErrorObject): unknown {
  let value = data;
  for (const segment of error.instancePath.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

/**
 * One sentence per problem, unknown fields first and grouped, e.g.
 * `Unknown field prodution in the body of POST /start (accepted: production, namespace)`.
 */
export function describeProblems(errors: ErrorObject[], data: unknown, part: Part, route: string, accepted: (field: string) => string[]): string {
  const where = part === 'body' ? `the body of ${route}` : `the ${partNames[part]} of ${route}`;
  const unknown = new Map<string, string[]>();
  const sentences: string[] = [];
  const seen = new Set<string>();
  const add = (sentence: string) => {
    if (!seen.has(sentence)) sentences.push(sentence);
    seen.add(sentence);
  };
  // A union reports each branch's failure; keep only the union's own sentence for those fields.
  const unionPaths = new Set(errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath));
  for (const error of errors) {
    const field = fieldOf(error);
    if (error.keyword === 'additionalProperties') {
      const name = String((error.params as { additionalProperty: string }).additionalProperty);
      unknown.set(field, [...(unknown.get(field) ?? []), name]);
    } else if (error.keyword === 'required') {
      add(`${within(field, String((error.params as { missingProperty: string }).missingProperty))} is required`);
    } else if (error.keyword === 'anyOf') {
      const value = valueAt(data, error);
      add(`${field || part} must be ${unionText(error)}, not ${allConstants(error) ? shown(value) : typeText(value)}`);
    } else if (unionPaths.has(error.instancePath)) {
      continue;
    } else if (error.keyword === 'type') {
      const expected = String((error.params as { type: string }).type);
      add(`${field || (part === 'body' ? 'The body' : part)} must be ${article(expected)}, not ${typeText(valueAt(data, error))}`);
    } else if (error.keyword === 'const' || error.keyword === 'enum') {
      add(`${field || part} must be ${allowedText(error)}, not ${shown(valueAt(data, error))}`);
    } else {
      add(`${field || part} ${error.message ?? 'is not valid'}`);
    }
  }
  const unknownSentences = [...unknown].map(([field, names]) => {
    const list = accepted(field);
    const what = names.length === 1 ? `Unknown field ${names[0]}` : `Unknown fields ${namedFew(names)}`;
    const inside = field === '' ? where : `${field} in ${where}`;
    return `${what} in ${inside} (accepted: ${list.length ? list.join(', ') : 'none'})`;
  });
  const text = [...unknownSentences, ...sentences.map((sentence) => `${sentence} in ${where}`)].join('; ');
  return text === '' ? `The ${partNames[part]} of ${route} does not fit the route` : text;
}

/** At most ten names, then how many more: a body with thousands of unknown fields must not make a huge reply. */
function namedFew(names: string[]): string {
  const shownNames = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shownNames} and ${names.length - 10} more` : shownNames;
}

/** A value as the error shows it: a scalar as JSON, anything else by its kind (it may be huge or deep). */
function shown(value: unknown): string {
  return value === null || typeof value === 'object' || value === undefined ? typeText(value) : JSON.stringify(value);
}

function article(type: string): string {
  if (type === 'integer' || type === 'object' || type === 'array') return `an ${type}`;
  if (type === 'null') return 'null';
  return `a ${type}`;
}

function unionBranches(error: ErrorObject): Array<{ type?: string; const?: unknown }> {
  return (error.parentSchema as { anyOf?: Array<{ type?: string; const?: unknown }> } | undefined)?.anyOf ?? [];
}

function allConstants(error: ErrorObject): boolean {
  const branches = unionBranches(error);
  return branches.length > 0 && branches.every((branch) => branch.const !== undefined);
}

function unionText(error: ErrorObject): string {
  const branches = unionBranches(error).map((branch) => (branch.const !== undefined ? JSON.stringify(branch.const) : article(branch.type ?? 'value')));
  if (branches.length === 0) return 'one of the accepted shapes';
  return branches.length === 1 ? (branches[0] ?? '') : `${branches.slice(0, -1).join(', ')} or ${branches.at(-1) ?? ''}`;
}

function allowedText(error: ErrorObject): string {
  const params = error.params as { allowedValue?: unknown; allowedValues?: unknown[] };
  const values = (params.allowedValues ?? [params.allowedValue]).map((value) => JSON.stringify(value));
  return values.length === 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1) ?? ''}`;
}

/** The declared fields of the object at `field` of a schema (for "accepted: …"). */
function declaredFields(schema: unknown, field: string): string[] {
  let node = schema as { properties?: Record<string, unknown>; items?: unknown } | undefined;
  for (const segment of field.split(/\.|\[\d+\]/).filter(Boolean)) node = node?.properties?.[segment] as typeof node;
  if (field.endsWith(']')) node = node?.items as typeof node;
  return Object.keys(node?.properties ?? {});
}

/** An object body whose fields are all optional: the route accepts no body at all. */
function bodyMayBeOmitted(schema: unknown): boolean {
  const shape = schema as { type?: unknown; required?: unknown[] };
  return shape.type === 'object' && (shape.required?.length ?? 0) === 0;
}

/** Fastify's validator compiler for the API: see the file comment. */
export const requestValidator: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart, method, url }) => {
  const part = (httpPart ?? 'body') as Part;
  // Compiled on the route's first request, not when the server starts: compiling the checkers of
  // every declared route (twice, with the /v1 alias) took about 300 ms of CPU of each start.
  let compiled: ValidateFunction | undefined;
  const checker = (): ValidateFunction => (compiled ??= (part === 'body' ? bodyChecker : textChecker).compile(schema as object));
  const omittable = part === 'body' && bodyMayBeOmitted(schema);
  const route = `${method} ${url}`;
  return (data: unknown) => {
    if (data === null || data === undefined) {
      if (part !== 'body') return { value: data ?? {} };
      if (omittable) return { value: {} };
      return { error: new RequestShapeError(`The body of ${route} is missing; it must be ${article(String((schema as { type?: string }).type ?? 'object'))}`) };
    }
    const check = checker();
    let fits: boolean;
    try {
      fits = check(data);
    } catch (error) {
      // A value nested thousands deep overflows the checker's recursion: refuse it, it is no declared shape.
      if (error instanceof RangeError)
        return { error: new RequestShapeError(`The ${partNames[part]} of ${route} is nested too deeply to be any of the declared fields`) };
      throw error;
    }
    if (fits) return { value: data };
    return { error: new RequestShapeError(describeProblems(check.errors ?? [], data, part, route, (field) => declaredFields(schema, field))) };
  };
};
