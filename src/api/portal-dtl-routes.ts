/**
 * The portal's DTL routes (declared in src/core/contract/dtl-routes.ts): transforms (list, get with
 * history, put, delete, compile, run), schemas (list, get, tree, import, delete) and lookup tables
 * (list, get, put, delete, and import / export in the IRIS lookup-table XML format; `GET
 * /lookups/export` hides a table named `export`). They call the DTL of the request's namespace.
 */
import type { FastifyInstance } from 'fastify';
import * as dtlRoutes from '../core/contract/dtl-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import { parseLookupTableXml, parseTestEnvelope, serializeLookupTableXml } from '../dtl/index.ts';
import type { DtlOperations, EngineOperations } from '../engine/namespace-operations.ts';
import { namespaceOf, type NamespaceCarrier } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { resolveReadableFile, noServerFileAccess, type ServerFileAccess } from './server-file-access.ts';
import { given } from './spec-routes.ts';

/** `{"entries": {key: value}}`: numbers are accepted and written as text; keys must not be empty. */
export function lookupEntries(entries: Record<string, string | number>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (key === '') throw new ConveyorError('ERR_INVALID_INPUT', 'A lookup key must not be empty');
    result[key] = String(value);
  }
  return result;
}

function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConveyorError('ERR_INVALID_INPUT', `schema is not valid JSON: ${(error as Error).message}`);
  }
}

export function registerPortalDtlRoutes(
  root: FastifyInstance,
  engine: EngineOperations,
  catalog: RouteCatalog | null,
  schemaFiles: ServerFileAccess = noServerFileAccess,
): void {
  const scope = contractScope(root);
  /** The DTL of the request's namespace. */
  const dtlOf = async (request: NamespaceCarrier): Promise<DtlOperations> => (await namespaceOf(request, engine)).dtl;

  serve(scope, catalog, dtlRoutes.listTransforms, async (request) => {
    const dtl = await dtlOf(request);
    return { transforms: await dtl.listTransforms() };
  });

  serve(scope, catalog, dtlRoutes.getTransform, async (request) => {
    const dtl = await dtlOf(request);
    const { name } = request.params;
    const transform = await dtl.getTransform(name, request.query.version);
    const history = await dtl.transformHistory(name);
    return { ...transform, history: history.map(({ version, updatedAt }) => ({ version, updatedAt })) };
  });

  serve(scope, catalog, dtlRoutes.putTransform, async (request) => {
    const dtl = await dtlOf(request);
    return dtl.putTransform(request.params.name, request.body.source);
  });

  serve(scope, catalog, dtlRoutes.deleteTransform, async (request) => {
    const dtl = await dtlOf(request);
    await dtl.deleteTransform(request.params.name);
    return { deleted: request.params.name };
  });

  serve(scope, catalog, dtlRoutes.compileTransform, async (request) => {
    const dtl = await dtlOf(request);
    const diagnostics = await dtl.compileTransform(request.body.source);
    return { ok: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
  });

  serve(scope, catalog, dtlRoutes.runTransform, async (request) => {
    const dtl = await dtlOf(request);
    const { json, envelope } = request.body;
    const name = given(request.body.name);
    const source = given(request.body.source);
    if (!name && !source) throw new ConveyorError('ERR_INVALID_INPUT', 'Give name (a stored transform) or source (a <transform> document) to run');
    if (!('json' in request.body) && envelope === undefined)
      throw new ConveyorError('ERR_INVALID_INPUT', 'json (the source message as a JSON value) or envelope (the test envelope XML) is required');
    const input = envelope === undefined ? json : parseTestEnvelope(envelope, 'test envelope');
    const classname = given(request.body.classname);
    const sqlHost = given(request.body.sqlHost);
    const { target, aux, parameters } = request.body;
    if ('target' in request.body && (target === null || typeof target !== 'object'))
      throw new ConveyorError('ERR_INVALID_INPUT', 'target (the initial target) must be a JSON object or list');
    return dtl.runTransform(source ? { source } : { name }, {
      json: input,
      ...(classname ? { classname } : {}),
      ...('target' in request.body ? { target } : {}),
      ...('aux' in request.body ? { aux } : {}),
      ...(parameters ? { parameters } : {}),
      ...(sqlHost ? { sqlHost } : {}),
    });
  });

  serve(scope, catalog, dtlRoutes.listSchemas, async (request) => {
    const dtl = await dtlOf(request);
    return { schemas: await dtl.listSchemas() };
  });

  serve(scope, catalog, dtlRoutes.getSchema, async (request) => {
    const dtl = await dtlOf(request);
    return dtl.getSchema(request.params.name);
  });

  serve(scope, catalog, dtlRoutes.schemaTree, async (request) => {
    const dtl = await dtlOf(request);
    return { fields: await dtl.schemaTree(request.params.name) };
  });

  serve(scope, catalog, dtlRoutes.importSchema, async (request) => {
    const dtl = await dtlOf(request);
    const { package: pkg, name, schema } = request.body;
    const path = given(request.body.path);
    if (pkg === '') throw new ConveyorError('ERR_INVALID_INPUT', 'package is required: the package (category) of the schema');
    if (name === '') throw new ConveyorError('ERR_INVALID_INPUT', 'name is required: the name the schema is selectable under');
    if (path === undefined && (schema === undefined || schema === null))
      throw new ConveyorError('ERR_INVALID_INPUT', 'Give schema (the JSON Schema document) or path (a JSON Schema file on the server)');
    // A server path only inside the folders the server opened for it (never the home's own files).
    const file = path === undefined ? undefined : await resolveReadableFile(path, schemaFiles);
    await dtl.importSchema({
      package: pkg,
      name,
      ...(file !== undefined ? { path: file } : { schema: typeof schema === 'string' ? parseSchemaText(schema) : schema }),
    });
    return { imported: name, package: pkg };
  });

  serve(scope, catalog, dtlRoutes.deleteSchema, async (request) => {
    const dtl = await dtlOf(request);
    await dtl.deleteSchema(request.params.name);
    return { deleted: request.params.name };
  });

  serve(scope, catalog, dtlRoutes.listLookups, async (request) => {
    const dtl = await dtlOf(request);
    return { tables: await dtl.lookupTables() };
  });

  serve(scope, catalog, dtlRoutes.getLookup, async (request) => {
    const dtl = await dtlOf(request);
    const table = request.params.name;
    return { table, entries: await dtl.getLookup(table) };
  });

  serve(scope, catalog, dtlRoutes.putLookup, async (request) => {
    const dtl = await dtlOf(request);
    const table = request.params.name;
    const entries = lookupEntries(request.body.entries);
    await dtl.putLookup(table, entries);
    return { table, entries: Object.keys(entries).length };
  });

  serve(scope, catalog, dtlRoutes.importLookups, async (request) => {
    const dtl = await dtlOf(request);
    const tables = parseLookupTableXml(request.body.xml, 'lookup table import');
    await dtl.putLookups(tables);
    return { tables: Object.keys(tables), entries: Object.values(tables).reduce((sum, entries) => sum + Object.keys(entries).length, 0) };
  });

  serve(scope, catalog, dtlRoutes.exportLookups, async (request) => {
    const dtl = await dtlOf(request);
    const wanted = given(request.query.table);
    const names = wanted
      ? wanted
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : await dtl.lookupTables();
    const tables: Record<string, Record<string, string>> = {};
    for (const name of names) tables[name] = await dtl.getLookup(name);
    return { xml: serializeLookupTableXml(tables) };
  });

  serve(scope, catalog, dtlRoutes.deleteLookup, async (request) => {
    const dtl = await dtlOf(request);
    await dtl.deleteLookup(request.params.name);
    return { deleted: request.params.name };
  });
}
