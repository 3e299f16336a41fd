/**
 * The portal's DTL routes: transforms (list, get with history, put, delete, compile, run), schemas
 * (list, get, tree, import, delete) and lookup tables (list, get, put, delete, and import / export in
 * the IRIS lookup-table XML format; `GET /lookups/export` hides a table named `export`). They call the engine's
 * DTL service; without one they answer 501 (ERR_NOT_AVAILABLE).
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { parseLookupTableXml, parseTestEnvelope, serializeLookupTableXml } from '../dtl/index.ts';
import type { DtlService, PortalEngine } from './portal-engine.ts';
import { bodyObject, describe, optionalString, queryInteger, queryString, requestNamespace, requiredString, type JsonObject } from './request-input.ts';
import { addRoute, type RouteCatalog, type RouteDescription } from './route-catalog.ts';
import * as s from './schemas.ts';

const tag = 'DTL';

function pathName(params: unknown, field: string): string {
  const value = (params as Record<string, string>)[field] ?? '';
  if (value.trim() === '') throw new ConveyorError('ERR_INVALID_INPUT', `The ${field} in the path must not be empty`);
  return value;
}

/** `{"entries": {key: value}}`: every value a string (numbers are accepted and written as text). */
export function lookupEntries(body: JsonObject): Record<string, string> {
  const entries = body.entries;
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `entries must be an object of key → value, not ${describe(entries)}`);
  }
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (key === '') throw new ConveyorError('ERR_INVALID_INPUT', 'A lookup key must not be empty');
    if (typeof value !== 'string' && typeof value !== 'number') throw new ConveyorError('ERR_INVALID_INPUT', `The value of ${JSON.stringify(key)} must be a string, not ${describe(value)}`);
    result[key] = String(value);
  }
  return result;
}

export function registerPortalDtlRoutes(scope: FastifyInstance, engine: PortalEngine, catalog: RouteCatalog | null, service: (what: string) => DtlService): void {
  const any = { type: 'object' };
  const nameParam = (what: string) => s.pathParameter('name', what);
  const route = (description: Omit<RouteDescription, 'spec' | 'tag' | 'responses'> & { reply: string }, handler: (dtl: DtlService, namespace: string, request: Parameters<typeof requestNamespace>[0]) => Promise<unknown>) => {
    const { reply, ...rest } = description;
    addRoute(scope, catalog, { ...rest, parameters: [s.namespaceQuery, ...(rest.parameters ?? [])], spec: false, tag, responses: s.ok(reply, any) }, async (request) => {
      const namespace = await requestNamespace(request, engine);
      return handler(service('DTL transforms, schemas and lookup tables'), namespace, request);
    });
  };

  route({ method: 'GET', url: '/transforms', role: 'viewer', summary: 'The DTL transforms of the namespace', reply: 'Transforms' }, async (dtl, ns) => ({ transforms: await dtl.listTransforms(ns) }));
  route({ method: 'GET', url: '/transforms/:name', role: 'viewer', summary: 'A transform (latest or `version`) and its history', parameters: [nameParam('Transform class name'), s.queryParameter('version', 'A stored version')], reply: 'Transform' }, async (dtl, ns, request) => {
    const name = pathName(request.params, 'name');
    const transform = await dtl.getTransform(ns, name, queryInteger(request, 'version'));
    const history = await dtl.transformHistory(ns, name);
    return { ...transform, history: history.map(({ version, updatedAt }) => ({ version, updatedAt })) };
  });
  route({ method: 'PUT', url: '/transforms/:name', role: 'operator', summary: 'Store a new version of a transform (refused with diagnostics when invalid)', parameters: [nameParam('Transform class name')], body: { schema: s.object({ source: s.str, namespace: s.str }, ['source']), required: true }, reply: 'Stored version' }, async (dtl, ns, request) =>
    dtl.putTransform(ns, pathName(request.params, 'name'), requiredString(bodyObject(request), 'source', 'the <transform> XML')),
  );
  route({ method: 'DELETE', url: '/transforms/:name', role: 'operator', summary: 'Delete a transform and its history', parameters: [nameParam('Transform class name')], reply: 'Deleted' }, async (dtl, ns, request) => {
    const name = pathName(request.params, 'name');
    await dtl.deleteTransform(ns, name);
    return { deleted: name };
  });
  route({ method: 'POST', url: '/transforms/compile', role: 'viewer', summary: 'Parse and validate a transform document; positioned diagnostics', body: { schema: s.object({ source: s.str, namespace: s.str }, ['source']), required: true }, reply: 'Diagnostics' }, async (dtl, ns, request) => {
    const diagnostics = await dtl.compileTransform(ns, requiredString(bodyObject(request), 'source', 'the <transform> XML'));
    return { ok: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
  });
  route(
    { method: 'POST', url: '/transforms/run', role: 'viewer', summary: 'Run a stored transform (`name`) or a document (`source`) on a source message: `json`, or the spec\'s test `envelope` `<test><Message><json><![CDATA[…]]></json></Message></test>`', body: { schema: s.object({ name: s.str, source: s.str, classname: s.str, json: {}, envelope: s.str, namespace: s.str }, []), required: true }, reply: 'Result' },
    async (dtl, ns, request) => {
      const body = bodyObject(request);
      const name = optionalString(body, 'name');
      const source = optionalString(body, 'source');
      if (!name && !source) throw new ConveyorError('ERR_INVALID_INPUT', 'Give name (a stored transform) or source (a <transform> document) to run');
      const envelope = optionalString(body, 'envelope');
      if (!('json' in body) && envelope === undefined) throw new ConveyorError('ERR_INVALID_INPUT', 'json (the source message as a JSON value) or envelope (the test envelope XML) is required');
      const json = envelope === undefined ? body.json : parseTestEnvelope(envelope, 'test envelope');
      const classname = optionalString(body, 'classname');
      return dtl.runTransform(ns, source ? { source } : { name: name as string }, { json, ...(classname ? { classname } : {}) });
    },
  );

  route({ method: 'GET', url: '/schemas', role: 'viewer', summary: 'The schemas usable as DTL doc types', reply: 'Schemas' }, async (dtl, ns) => ({ schemas: await dtl.listSchemas(ns) }));
  route({ method: 'GET', url: '/schemas/:name', role: 'viewer', summary: 'A schema document', parameters: [nameParam('Schema name')], reply: 'Schema' }, async (dtl, ns, request) => dtl.getSchema(ns, pathName(request.params, 'name')));
  route({ method: 'GET', url: '/schemas/:name/tree', role: 'viewer', summary: 'The fields of a schema as a tree (for the DTL editor)', parameters: [nameParam('Schema name')], reply: 'Tree' }, async (dtl, ns, request) => ({ fields: await dtl.schemaTree(ns, pathName(request.params, 'name')) }));
  route(
    { method: 'POST', url: '/schemas/import', role: 'admin', summary: 'Import a JSON schema (`schema` document or server `path`) under `package` and `name`', body: { schema: s.object({ path: s.str, schema: {}, package: s.str, name: s.str, namespace: s.str }, ['package', 'name']), required: true }, reply: 'Imported' },
    async (dtl, ns, request) => {
      const body = bodyObject(request);
      const pkg = requiredString(body, 'package', 'the package (category) of the schema');
      const name = requiredString(body, 'name', 'the name the schema is selectable under');
      const path = optionalString(body, 'path');
      const schema = body.schema;
      if (path === undefined && (schema === undefined || schema === null)) throw new ConveyorError('ERR_INVALID_INPUT', 'Give schema (the JSON Schema document) or path (a JSON Schema file on the server)');
      await dtl.importSchema(ns, { package: pkg, name, ...(path !== undefined ? { path } : { schema: typeof schema === 'string' ? parseSchemaText(schema) : schema }) });
      return { imported: name, package: pkg };
    },
  );
  route({ method: 'DELETE', url: '/schemas/:name', role: 'operator', summary: 'Delete a schema', parameters: [nameParam('Schema name')], reply: 'Deleted' }, async (dtl, ns, request) => {
    const name = pathName(request.params, 'name');
    await dtl.deleteSchema(ns, name);
    return { deleted: name };
  });

  route({ method: 'GET', url: '/lookups', role: 'viewer', summary: 'The lookup tables of the namespace', reply: 'Tables' }, async (dtl, ns) => ({ tables: await dtl.lookupTables(ns) }));
  route({ method: 'GET', url: '/lookups/:name', role: 'viewer', summary: 'The entries of a lookup table', parameters: [nameParam('Table name')], reply: 'Entries' }, async (dtl, ns, request) => {
    const table = pathName(request.params, 'name');
    return { table, entries: await dtl.getLookup(ns, table) };
  });
  route({ method: 'PUT', url: '/lookups/:name', role: 'operator', summary: 'Create or replace a lookup table', parameters: [nameParam('Table name')], body: { schema: s.object({ entries: { type: 'object' }, namespace: s.str }, ['entries']), required: true }, reply: 'Stored' }, async (dtl, ns, request) => {
    const table = pathName(request.params, 'name');
    const entries = lookupEntries(bodyObject(request));
    await dtl.putLookup(ns, table, entries);
    return { table, entries: Object.keys(entries).length };
  });
  route({ method: 'POST', url: '/lookups/import', role: 'operator', summary: 'Import lookup tables from the IRIS lookup-table XML export (each table named in it is replaced)', body: { schema: s.object({ xml: s.str, namespace: s.str }, ['xml']), required: true }, reply: 'Imported' }, async (dtl, ns, request) => {
    const tables = parseLookupTableXml(requiredString(bodyObject(request), 'xml', 'the <lookupTable> XML'), 'lookup table import');
    for (const [table, entries] of Object.entries(tables)) await dtl.putLookup(ns, table, entries);
    return { tables: Object.keys(tables), entries: Object.values(tables).reduce((sum, entries) => sum + Object.keys(entries).length, 0) };
  });
  route({ method: 'GET', url: '/lookups/export', role: 'viewer', summary: 'The lookup tables (all, or those of `table`, comma-separated) in the IRIS lookup-table XML format', parameters: [s.queryParameter('table', 'Table names, comma-separated (default: every table)')], reply: 'XML' }, async (dtl, ns, request) => {
    const wanted = queryString(request, 'table');
    const names = wanted ? wanted.split(',').map((name) => name.trim()).filter(Boolean) : await dtl.lookupTables(ns);
    const tables: Record<string, Record<string, string>> = {};
    for (const name of names) tables[name] = await dtl.getLookup(ns, name);
    return { xml: serializeLookupTableXml(tables) };
  });
  route({ method: 'DELETE', url: '/lookups/:name', role: 'operator', summary: 'Delete a lookup table', parameters: [nameParam('Table name')], reply: 'Deleted' }, async (dtl, ns, request) => {
    const table = pathName(request.params, 'name');
    await dtl.deleteLookup(ns, table);
    return { deleted: table };
  });
}

function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConveyorError('ERR_INVALID_INPUT', `schema is not valid JSON: ${(error as Error).message}`);
  }
}
