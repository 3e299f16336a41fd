/**
 * A valid request for every route the suite knows, against the state the suite set up (the migrated
 * production running, a lookup table, a schema, a transform, a class document, users, messages). A bad
 * case changes ONE thing of this request, so a refusal can only come from that one thing, and a route
 * that wrongly accepts the bad input really acts (which the state snapshot then sees).
 *
 * A route the suite does not know (added after it was written) gets a generic request built from its
 * schema: required properties with plain values, path parameters that name nothing.
 */
import type { ApiRoute, JsonSchema } from './openapi-routes.ts';
import { objectShape, routeKey } from './openapi-routes.ts';

export const production = 'BadInput.Production';
export const item = 'Relay';
export const requestClass = 'lib.messages.RelayRequest';
export const lookupTable = 'Codes';
export const schemaName = 'bi.Out';
export const transformName = 'BadInput.Label';
export const documentName = 'BadInput.Doc.cls';
export const documentLines = ['Class BadInput.Doc Extends %RegisteredObject', '{', '}'];
export const transformSource = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='bi.In' targetDocType='bi.Out' create='new' language='objectscript'>
<assign value='..Lookup("Codes",source.{code},"?")' property='target.{label}' action='set'/>
</transform>`;
export const lookupSchema = { type: 'object', properties: { label: { type: 'string' } } };
export const users = { viewer: { name: 'bi-viewer', password: 'bi-viewer-pw' }, operator: { name: 'bi-operator', password: 'bi-operator-pw' } } as const;

/** What setup produced that the requests refer to. */
export interface SuiteState {
  packageFiles: Array<{ name: string; data: string }>;
  definition: unknown;
  lookupXml: string;
  messageId: number;
  sessionId: number;
}

export interface BaselineRequest {
  pathParams: Record<string, string>;
  query: Record<string, string>;
  /** undefined: the route takes no body. */
  body?: Record<string, unknown> | unknown[];
}

function known(state: SuiteState): Record<string, BaselineRequest> {
  const p = (params: Record<string, string>, body?: BaselineRequest['body'], query: Record<string, string> = {}): BaselineRequest => ({
    pathParams: params,
    query,
    ...(body === undefined ? {} : { body }),
  });
  const forProduction = p({}, undefined, { production });
  return {
    'POST /api/iop/start': p({}, { production }),
    'PUT /api/iop/default': p({}, { production }),
    'GET /api/iop/export': forProduction,
    'GET /api/iop/queues': forProduction,
    'GET /api/iop/connections': forProduction,
    'GET /api/iop/items': forProduction,
    'GET /api/iop/definition': forProduction,
    'GET /api/iop/log': p({}, undefined, { top: '5' }),
    'POST /api/iop/test': p({}, { target: item, classname: requestClass, body: { text: 'x' }, restart: false }),
    'POST /api/iop/test-run': p({}, { target: item, classname: requestClass, body: { text: 'x' }, restart: false }),
    'PUT /api/iop/migrate': p({}, { package: 'relay', remote_folder: '', settings_file: 'settings.py', body: state.packageFiles }),
    'POST /api/iop/component/start': p({}, { component: item }),
    'POST /api/iop/component/stop': p({}, { component: item }),
    'POST /api/iop/component/restart': p({}, { component: item }),
    'PUT /api/iop/users/{name}': p({ name: users.operator.name }, { password: users.operator.password, role: 'operator' }),
    'DELETE /api/iop/users/{name}': p({ name: users.viewer.name }),
    'PUT /api/atelier/v1/{namespace}/doc/{name}': p({ namespace: 'USER', name: documentName }, { enc: false, content: documentLines }, { ignoreConflict: '1' }),
    'GET /api/atelier/v1/{namespace}/doc/{name}': p({ namespace: 'USER', name: documentName }),
    'POST /api/atelier/v1/{namespace}/action/compile': p({ namespace: 'USER' }, [documentName], { flags: 'cuk' }),
    'GET /api/iop/messages': p({}, undefined, { limit: '5' }),
    'GET /api/iop/messages/{id}': p({ id: String(state.messageId) }),
    'POST /api/iop/messages/{id}/resend': p({ id: String(state.messageId) }, {}),
    'GET /api/iop/sessions/{id}': p({ id: String(state.sessionId) }),
    'GET /api/iop/log/search': p({}, undefined, { limit: '5' }),
    'PUT /api/iop/definition': p({}, { definition: state.definition }),
    'POST /api/iop/production/validate': p({}, { definition: state.definition }),
    'POST /api/iop/production/diff': p({}, { definition: state.definition }),
    'POST /api/iop/production/plan': p({}, { definition: state.definition }),
    'POST /api/iop/production/apply': p({}, { definition: state.definition, allow_destructive: true }),
    'GET /api/iop/production/previous': forProduction,
    'GET /api/iop/bindings': p({}, undefined, { unused: '1' }),
    'GET /api/iop/transforms/{name}': p({ name: transformName }),
    'PUT /api/iop/transforms/{name}': p({ name: transformName }, { source: transformSource }),
    'DELETE /api/iop/transforms/{name}': p({ name: transformName }),
    'POST /api/iop/transforms/compile': p({}, { source: transformSource }),
    'POST /api/iop/transforms/run': p({}, { name: transformName, json: { code: 'a' } }),
    'GET /api/iop/schemas/{name}': p({ name: schemaName }),
    'DELETE /api/iop/schemas/{name}': p({ name: schemaName }),
    'GET /api/iop/schemas/{name}/tree': p({ name: schemaName }),
    'POST /api/iop/schemas/import': p({}, { package: 'bi', name: schemaName, schema: lookupSchema }),
    'GET /api/iop/lookups/{name}': p({ name: lookupTable }),
    'PUT /api/iop/lookups/{name}': p({ name: lookupTable }, { entries: { a: 'Alpha' } }),
    'DELETE /api/iop/lookups/{name}': p({ name: lookupTable }),
    'POST /api/iop/lookups/import': p({}, { xml: state.lookupXml }),
    'GET /api/iop/lookups/export': p({}, undefined, { table: lookupTable }),
  };
}

/** A plain value of a schema, for the generic request of an unknown route. */
function plainValue(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const shape = objectShape(schema);
      return shape ? Object.fromEntries(shape.required.map((name) => [name, plainValue(shape.properties[name] ?? {})])) : {};
    }
    default:
      return 'bad-input-value';
  }
}

export function baselineOf(route: ApiRoute, state: SuiteState): BaselineRequest {
  const request = known(state)[routeKey(route)];
  if (request) return request;
  const pathParams = Object.fromEntries(
    route.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.name === 'namespace' ? 'USER' : 'no-such-thing-bad-input']),
  );
  const body = route.body ? plainValue(route.body.schema) : undefined;
  return { pathParams, query: {}, ...(body === undefined ? {} : { body: body as Record<string, unknown> }) };
}

/** Whether the suite has a hand-written request for the route (reported, so new routes show up). */
export function isKnown(route: ApiRoute, state: SuiteState): boolean {
  return known(state)[routeKey(route)] !== undefined;
}
