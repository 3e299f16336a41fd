/**
 * The bad inputs of one route, generated from its OpenAPI description and its valid request: wrong or
 * missing credentials, a role too low, bodies that are not JSON or over the limit, a wrong type for
 * each declared property, unknown fields, missing required fields, hostile names in bodies, path and
 * query. Each case says what the documentation promises for it (docs/api.md, "Rules every route
 * follows"); reply-judge.ts holds that promise against the real reply.
 */
import {
  accepts,
  acceptsText,
  badNumbers,
  hostileNames,
  hostileNumbers,
  hostilePathSegments,
  hostileQueryValues,
  hostileXml,
  wrongValues,
  type BodyValue,
} from './bad-values.ts';
import type { BaselineRequest } from './baselines.ts';
import { objectShape, roleAtLeast, routeKey, typesOf, type ApiRoute, type JsonSchema, type Role } from './openapi-routes.ts';

export type Identity = Role | 'none' | 'empty' | 'malformed' | 'wrong-password' | 'huge-password' | 'unknown-user';

/**
 * What the docs promise, held by reply-judge.ts. `invalid`: the route's own declaration rejects the
 * request; `refused`: it fits the declaration but names nothing that can be; `harmless`: the route may
 * answer or refuse it, as long as nothing breaks.
 */
export type Expectation = 'unauthenticated' | 'forbidden' | 'not-json' | 'too-large' | 'path-too-long' | 'invalid' | 'refused' | 'harmless';

export type CaseKind =
  | 'credentials'
  | 'role'
  | 'malformed body'
  | 'oversized body'
  | 'body not an object'
  | 'wrong type'
  | 'unknown field'
  | 'missing field'
  | 'hostile value'
  | 'path parameter'
  | 'query parameter';

export interface BadCase {
  id: string;
  route: ApiRoute;
  kind: CaseKind;
  identity: Identity;
  /** Path and query, percent-encoded. */
  path: string;
  body?: string;
  /** undefined: application/json when there is a body; null: no content type. */
  contentType?: string | null;
  expect: Expectation;
}

/** Body properties that carry free text (any string is a valid value), not names of things. */
const freeText = new Set([
  'password',
  'data',
  'source',
  'xml',
  'text',
  'description',
  'comment',
  'value',
  'body',
  'envelope',
  'content',
  'schedule',
  'json',
  'schema',
]);
/** Body properties that name something to create, not something that must exist. */
const creatingNames = new Set(['package', 'name']);
/** Query parameters that must name something that exists. */
const referencingQuery = new Set(['namespace', 'production', 'table']);
/** Query parameters that must be numbers (whatever type the document gives them). */
const numericQuery = new Set(['top', 'since_id', 'limit', 'before', 'version', 'session', 'id']);
/** Query parameters with a closed set of values or a format. */
const formattedQuery: Record<string, string> = { from: 'not-a-time', to: 'not-a-time', status: 'no-such-status', kind: 'no-such-kind', type: 'no-such-type' };

const valueMarker = '__BAD_INPUT_VALUE__';
/** Unknown fields in one body: the refusal names them all, so it must not grow past reason (or hang). */
const manyFields = 10_000;
/** The longest path segment the server routes (docs/api.md, "Outside both rules"). */
const maxPathSegment = 100;

/** The request path: parameters encoded, except `raw` (one parameter given as an already encoded segment). */
function pathOf(route: ApiRoute, params: Record<string, string>, query: Array<[string, string]>, raw?: { name: string; segment: string }): string {
  const path = route.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === raw?.name ? raw.segment : encodeURIComponent(params[name] ?? `missing-${name}`),
  );
  const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return search ? `${path}?${search}` : path;
}

/** The body text with the value at `field` (a property path) replaced by raw JSON text, or removed. */
function bodyWith(body: Record<string, unknown>, field: string[], value: BodyValue | 'remove'): string {
  const copy = structuredClone(body);
  let target: Record<string, unknown> = copy;
  for (const step of field.slice(0, -1)) {
    const next = target[step];
    if (next === null || typeof next !== 'object') target[step] = {};
    target = target[step] as Record<string, unknown>;
  }
  const last = field.at(-1) as string;
  if (value === 'remove') {
    delete target[last];
    return JSON.stringify(copy);
  }
  target[last] = valueMarker;
  return JSON.stringify(copy).replace(JSON.stringify(valueMarker), () => value.json);
}

interface VariedProperty {
  field: string[];
  schema: JsonSchema;
  required: boolean;
  closed: boolean;
}

/**
 * The properties to vary: the body's own, and two levels into object properties and into the first
 * element of arrays of objects (a definition's `items[0].pool_size`), where the valid request has one.
 */
function propertiesOf(schema: JsonSchema, present: unknown, prefix: string[] = [], depth = 0): VariedProperty[] {
  const shape = objectShape(schema);
  if (!shape) return [];
  const values = (present ?? {}) as Record<string, unknown>;
  const own = Object.entries(shape.properties).map(([name, property]) => ({
    field: [...prefix, name],
    schema: property,
    required: shape.required.includes(name),
    closed: shape.closed,
  }));
  if (depth >= 2) return own;
  return own.flatMap((entry) => {
    const name = entry.field.at(-1) as string;
    const value = values[name];
    const items = entry.schema.items as JsonSchema | undefined;
    const nested =
      Array.isArray(value) && value.length > 0 && items
        ? propertiesOf(items, value[0], [...entry.field, '0'], depth + 1)
        : propertiesOf(entry.schema, value, entry.field, depth + 1);
    return [entry, ...nested];
  });
}

function valueAt(body: unknown, field: string[]): unknown {
  return field.reduce<unknown>((value, step) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined), body);
}

function isNumeric(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  return types.includes('integer') || types.includes('number');
}

/** Whether a hostile body value breaks the declared schema (400) or only names nothing (refused). */
function fits(schema: JsonSchema, value: BodyValue): Expectation {
  return accepts(schema, JSON.parse(value.json)) ? 'refused' : 'invalid';
}

/** The same for a path or query value, which the server converts from text as its schema says. */
function textFits(schema: JsonSchema, text: string | string[] | null): Expectation {
  return text !== null && acceptsText(schema, text) ? 'refused' : 'invalid';
}

/** A percent-encoded segment as the server reads it; null when it is not valid percent-encoding. */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function isString(schema: JsonSchema): boolean {
  return typesOf(schema).includes('string');
}

type AddCase = (kind: CaseKind, label: string, expect: Expectation, request?: Partial<Pick<BadCase, 'identity' | 'path' | 'body' | 'contentType'>>) => void;

interface RouteContext {
  route: ApiRoute;
  baseline: BaselineRequest;
  baseQuery: Array<[string, string]>;
  basePath: string;
  baseBody: string | undefined;
  add: AddCase;
}

export function casesOf(route: ApiRoute, baseline: BaselineRequest, spec: { bodyLimit: number }): BadCase[] {
  const cases: BadCase[] = [];
  const key = routeKey(route);
  const baseQuery = Object.entries(baseline.query);
  const basePath = pathOf(route, baseline.pathParams, baseQuery);
  const baseBody = baseline.body === undefined ? undefined : JSON.stringify(baseline.body);
  const seen = new Set<string>();
  const add: AddCase = (kind, label, expect, request = {}) => {
    // One case per label: an edge number can be both a wrong type and a hostile number.
    if (seen.has(label)) return;
    seen.add(label);
    cases.push({
      id: `${key} · ${label}`,
      route,
      kind,
      expect,
      identity: request.identity ?? 'admin',
      path: request.path ?? basePath,
      ...('body' in request ? { body: request.body } : baseBody === undefined ? {} : { body: baseBody }),
      ...('contentType' in request ? { contentType: request.contentType } : {}),
    });
  };
  const context: RouteContext = { route, baseline, baseQuery, basePath, baseBody, add };
  credentialCases(context);
  bodyCases(context, spec.bodyLimit);
  pathCases(context);
  queryCases(context);
  return cases;
}

/** Credentials and roles, on the real request, so a route that forgot the check would act on it. */
function credentialCases({ route, basePath, add }: RouteContext): void {
  add('credentials', 'no Authorization header', 'unauthenticated', { identity: 'none' });
  add('credentials', 'empty Basic credentials (Og==)', 'unauthenticated', { identity: 'empty' });
  add('credentials', 'a header that is not Basic', 'unauthenticated', { identity: 'malformed' });
  add('credentials', 'a wrong password', 'unauthenticated', { identity: 'wrong-password' });
  add('credentials', 'an unknown user', 'unauthenticated', { identity: 'unknown-user' });
  add('credentials', 'a password of 8 KB', 'unauthenticated', { identity: 'huge-password' });
  for (const role of ['viewer', 'operator'] as const) {
    if (!roleAtLeast(role, route.role)) add('role', `a ${role} on a route for ${route.role}s`, 'forbidden', { identity: role });
  }
  // The document lists each route once; the server answers it under {prefix}/v1 as well (info.description).
  const alias = /^\/api\/iop\//.test(basePath) ? basePath.replace(/^\/api\/iop\//, '/api/iop/v1/') : undefined;
  if (alias) {
    add('credentials', 'the /v1 alias without an Authorization header', 'unauthenticated', { identity: 'none', path: alias });
    if (!roleAtLeast('viewer', route.role))
      add('role', `a viewer on the /v1 alias of a route for ${route.role}s`, 'forbidden', { identity: 'viewer', path: alias });
  }
}

/** Bodies that are not JSON, too large, missing, not an object; then each declared property varied. */
function bodyCases({ route, baseline, baseBody, add }: RouteContext, bodyLimit: number): void {
  if (!route.body || baseBody === undefined) return;
  add('malformed body', 'a truncated JSON body', 'not-json', { body: baseBody.slice(0, Math.max(1, Math.floor(baseBody.length / 2))) });
  add('malformed body', 'JSON followed by garbage', 'not-json', { body: `${baseBody} trailing-garbage` });
  add('malformed body', 'two JSON values', 'not-json', { body: `${baseBody}${baseBody}` });
  add('malformed body', 'a form-encoded body', 'not-json', { body: 'production=x&namespace=USER', contentType: 'application/x-www-form-urlencoded' });
  add('malformed body', 'an XML body', 'not-json', { body: '<request><production>x</production></request>', contentType: 'application/xml' });
  add('malformed body', 'plain text', 'not-json', { body: 'hello', contentType: 'text/plain' });
  add('malformed body', 'bytes that are not UTF-8', 'not-json', {
    body: Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0xc3]).toString('latin1'),
    contentType: 'application/octet-stream',
  });
  add('oversized body', 'a body over the body limit', 'too-large', { body: `{"pad":"${'x'.repeat(bodyLimit)}"}` });
  if (route.body.required) {
    add('missing field', 'an empty body where one is required', 'invalid', { body: '' });
    add('missing field', 'no body where one is required', 'invalid', { body: undefined, contentType: null });
  }
  const top = route.body.schema;
  for (const value of wrongValues(top)) add('body not an object', `the whole body is ${value.label}`, 'invalid', { body: value.json });
  if (Array.isArray(baseline.body)) return;
  const body = baseline.body ?? {};
  if (objectShape(top)?.closed) {
    add('unknown field', 'an unknown extra field', 'invalid', { body: bodyWith(body, ['unknownBadInputField'], { label: '', json: '"x"' }) });
    // JSON.parse makes `__proto__` an own field; a check that walks prototypes would miss it.
    const withFields = (fields: string) => `{${fields}${baseBody === '{}' ? '' : ','}${baseBody.slice(1)}`;
    add('unknown field', 'a __proto__ field', 'invalid', { body: withFields('"__proto__":{"role":"admin","isAdmin":true}') });
    add('unknown field', `${manyFields} unknown fields`, 'invalid', {
      body: withFields(Array.from({ length: manyFields }, (_, index) => `"unknownBadInputField${index}":${index}`).join(',')),
    });
  }
  for (const property of propertiesOf(top, body)) propertyCases(property, body, add);
}

/** One property: every wrong type, its absence when required, and hostile values where the request uses it. */
function propertyCases(property: VariedProperty, body: Record<string, unknown>, add: AddCase): void {
  const name = property.field.join('.');
  const hostile = (value: BodyValue) =>
    add('hostile value', `${name} is ${value.label}`, fits(property.schema, value), { body: bodyWith(body, property.field, value) });
  for (const value of wrongValues(property.schema)) add('wrong type', `${name} is ${value.label}`, 'invalid', { body: bodyWith(body, property.field, value) });
  if (property.required) add('missing field', `${name} is missing`, 'invalid', { body: bodyWith(body, property.field, 'remove') });
  // A hostile value matters where the request uses it: a field the valid request sets (an alias the
  // request leaves out, like `item` beside `component`, is only checked for its type).
  if (valueAt(body, property.field) === undefined) return;
  const leaf = property.field.at(-1) as string;
  if (isNumeric(property.schema)) {
    for (const value of hostileNumbers) hostile(value);
    return;
  }
  if (leaf === 'xml' || leaf === 'source') {
    for (const value of hostileXml) hostile(value);
    return;
  }
  if (!isString(property.schema) || freeText.has(leaf)) return;
  for (const name of hostileNames) {
    // Inside a definition, names are created or may name a class registered later.
    if ((creatingNames.has(leaf) || property.field.length > 1) && !name.creates) continue;
    hostile({ label: name.label, json: JSON.stringify(name.value) });
  }
}

/** Path parameters: names out of the home, NUL, unknown names, bad ids, segments over the limit. */
function pathCases({ route, baseline, baseQuery, add }: RouteContext): void {
  for (const parameter of route.parameters.filter((p) => p.in === 'path')) {
    const creates = route.method === 'PUT';
    for (const { label, segment } of hostilePathSegments(/id$/i.test(parameter.name), creates)) {
      // docs/api.md: a path segment over 100 characters is answered 414 before any route runs.
      const expect = segment.length > maxPathSegment ? 'path-too-long' : textFits(parameter.schema, decoded(segment));
      add('path parameter', `path {${parameter.name}} is ${label}`, expect, {
        path: pathOf(route, baseline.pathParams, baseQuery, { name: parameter.name, segment }),
      });
    }
  }
}

/** Query parameters: unknown ones, bad numbers, repeated ones, bad formats and hostile names. */
function queryCases({ route, baseline, baseQuery, add }: RouteContext): void {
  // docs/api.md: an undeclared query parameter is refused, except by the class-document API (another
  // product's API, whose clients send parameters it ignores).
  if (!route.template.startsWith('/api/atelier/')) {
    add('query parameter', 'an unknown query parameter', 'invalid', {
      path: pathOf(route, baseline.pathParams, [...baseQuery, ['unknownBadInputParameter', 'x']]),
    });
  }
  for (const parameter of route.parameters.filter((p) => p.in === 'query')) {
    const withValue = (value: string): string =>
      pathOf(route, baseline.pathParams, [...baseQuery.filter(([name]) => name !== parameter.name), [parameter.name, value]]);
    // A query value the declared schema takes (as the server converts it: `0x10` → 16, `1e23`) is the
    // route's to answer or refuse; one it rejects must be refused; a name that must exist, refused.
    const expectFor = (value: string): Expectation => {
      const fitting = textFits(parameter.schema, value);
      return fitting === 'invalid' || referencingQuery.has(parameter.name) ? fitting : 'harmless';
    };
    if (numericQuery.has(parameter.name) || isNumeric(parameter.schema)) {
      for (const bad of badNumbers) add('query parameter', `query ${parameter.name} is ${bad.label}`, expectFor(bad.value), { path: withValue(bad.value) });
      add('query parameter', `query ${parameter.name} given twice`, textFits(parameter.schema, ['1', '2']), {
        path: `${withValue('1')}&${encodeURIComponent(parameter.name)}=2`,
      });
      continue;
    }
    const format = formattedQuery[parameter.name];
    if (format) add('query parameter', `query ${parameter.name} is ${JSON.stringify(format)}`, textFits(parameter.schema, format), { path: withValue(format) });
    for (const hostile of hostileQueryValues)
      add('query parameter', `query ${parameter.name} is ${hostile.label}`, expectFor(hostile.value), { path: withValue(hostile.value) });
  }
}
