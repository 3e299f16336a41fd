/**
 * The portal's DTL routes: transforms (list, get with history, put, delete, compile, run), schemas
 * (list, get, tree, import, delete) and lookup tables (list, get, put, delete, import and export in
 * the IRIS lookup-table XML format). Without a DTL service the server answers 501.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { anyJson, closed, namespaceBody, namespaceQuery, ok, pathText, route } from './route.ts';

const tag = 'DTL';
const nameParams = (what: string) => closed({ name: pathText(what) });
const deleted = closed({ deleted: Type.String() });

const transformSummary = closed({
  name: Type.String(),
  sourceClass: Type.String(),
  targetClass: Type.String(),
  sourceDocType: Type.String(),
  targetDocType: Type.String(),
  version: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type TransformSummaryJson = Static<typeof transformSummary>;

const transformVersionFields = {
  name: Type.String(),
  source: Type.String({ description: 'The <transform> XML (or the .cls text it was stored as)' }),
  version: Type.Integer(),
  updatedAt: Type.Integer(),
};
const transformVersion = closed(transformVersionFields);

const diagnostic = closed({
  line: Type.Integer(),
  column: Type.Integer(),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
  message: Type.String(),
});
export type DiagnosticJson = Static<typeof diagnostic>;

/** A field of a message class or JSON schema as the DTL editor shows it (src/dtl/schema-tree.ts). */
export interface SchemaFieldJson {
  name: string;
  path: string;
  type: string;
  repeating: boolean;
  required: boolean;
  enum?: string[];
  description?: string;
  children: SchemaFieldJson[];
}
/** One level is declared; `children` holds more of the same (JSON Schema recursion would not survive the OpenAPI document). */
const schemaField = closed({
  name: Type.String(),
  path: Type.String({ description: 'What goes inside source.{…}' }),
  type: Type.String(),
  repeating: Type.Boolean(),
  required: Type.Boolean(),
  enum: Type.Optional(Type.Array(Type.String())),
  description: Type.Optional(Type.String()),
  children: Type.Unsafe<SchemaFieldJson[]>(Type.Array(anyJson, { description: 'Fields of the same shape' })),
});

function dtlRoute<const M extends 'GET' | 'POST' | 'PUT' | 'DELETE', const R extends 'viewer' | 'operator' | 'admin', const S extends TSchema>(
  method: M,
  path: string,
  role: R,
  summary: string,
  reply: string,
  schema: S,
) {
  return { method, path, role, spec: false, tag, summary, querystring: namespaceQuery(), replies: ok(reply, schema) } as const;
}

export const listTransforms = route(
  dtlRoute('GET', '/transforms', 'viewer', 'The DTL transforms of the namespace', 'Transforms', closed({ transforms: Type.Array(transformSummary) })),
);

export const getTransform = route({
  ...dtlRoute(
    'GET',
    '/transforms/:name',
    'viewer',
    'A transform (latest or `version`) and its history',
    'Transform',
    closed({ ...transformVersionFields, history: Type.Array(closed({ version: Type.Integer(), updatedAt: Type.Integer() })) }),
  ),
  params: nameParams('Transform class name'),
  querystring: namespaceQuery({ version: Type.Optional(Type.Integer({ minimum: 1, description: 'A stored version' })) }),
});

export const putTransform = route({
  ...dtlRoute(
    'PUT',
    '/transforms/:name',
    'operator',
    'Store a new version of a transform (refused with diagnostics when invalid)',
    'Stored version',
    transformVersion,
  ),
  params: nameParams('Transform class name'),
  body: namespaceBody({ source: Type.String({ description: 'The <transform> XML' }) }),
});

export const deleteTransform = route({
  ...dtlRoute('DELETE', '/transforms/:name', 'operator', 'Delete a transform and its history', 'Deleted', deleted),
  params: nameParams('Transform class name'),
});

export const compileTransform = route({
  ...dtlRoute(
    'POST',
    '/transforms/compile',
    'viewer',
    'Parse and validate a transform document; positioned diagnostics',
    'Diagnostics',
    closed({ ok: Type.Boolean(), diagnostics: Type.Array(diagnostic) }),
  ),
  body: namespaceBody({ source: Type.String({ description: 'The <transform> XML' }) }),
});

export const runTransform = route({
  ...dtlRoute(
    'POST',
    '/transforms/run',
    'viewer',
    "Run a stored transform (`name`) or a document (`source`) on a source message: `json`, or the spec's test `envelope` `<test><Message><json><![CDATA[…]]></json></Message></test>`",
    'Result',
    closed({
      target: anyJson,
      targetClass: Type.String(),
      status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
      errors: Type.Array(Type.String()),
      trace: Type.Array(Type.String()),
    }),
  ),
  body: namespaceBody({
    name: Type.Optional(Type.String({ description: 'A stored transform' })),
    source: Type.Optional(Type.String({ description: 'A <transform> document' })),
    classname: Type.Optional(Type.String()),
    json: Type.Optional(anyJson),
    envelope: Type.Optional(Type.String({ description: 'The test envelope XML' })),
  }),
});

const schemaSummary = closed({ name: Type.String(), category: Type.String(), updatedAt: Type.Integer() });

export const listSchemas = route(
  dtlRoute('GET', '/schemas', 'viewer', 'The schemas usable as DTL doc types', 'Schemas', closed({ schemas: Type.Array(schemaSummary) })),
);

export const getSchema = route({
  ...dtlRoute('GET', '/schemas/:name', 'viewer', 'A schema document', 'Schema', closed({ name: Type.String(), category: Type.String(), schema: anyJson })),
  params: nameParams('Schema name'),
});

export const schemaTree = route({
  ...dtlRoute(
    'GET',
    '/schemas/:name/tree',
    'viewer',
    'The fields of a schema as a tree (for the DTL editor)',
    'Tree',
    closed({ fields: Type.Array(schemaField) }),
  ),
  params: nameParams('Schema name'),
});

export const importSchema = route({
  ...dtlRoute(
    'POST',
    '/schemas/import',
    'admin',
    'Import a JSON schema (`schema` document or server `path`) under `package` and `name`',
    'Imported',
    closed({ imported: Type.String(), package: Type.String() }),
  ),
  body: namespaceBody({
    path: Type.Optional(Type.String({ description: 'A JSON Schema file on the server' })),
    schema: Type.Optional(anyJson),
    package: Type.String({ description: 'The package (category) of the schema' }),
    name: Type.String({ description: 'The name the schema is selectable under' }),
  }),
});

export const deleteSchema = route({
  ...dtlRoute('DELETE', '/schemas/:name', 'operator', 'Delete a schema', 'Deleted', deleted),
  params: nameParams('Schema name'),
});

export const listLookups = route(
  dtlRoute('GET', '/lookups', 'viewer', 'The lookup tables of the namespace', 'Tables', closed({ tables: Type.Array(Type.String()) })),
);

export const getLookup = route({
  ...dtlRoute(
    'GET',
    '/lookups/:name',
    'viewer',
    'The entries of a lookup table',
    'Entries',
    closed({ table: Type.String(), entries: Type.Record(Type.String(), Type.String()) }),
  ),
  params: nameParams('Table name'),
});

export const putLookup = route({
  ...dtlRoute('PUT', '/lookups/:name', 'operator', 'Create or replace a lookup table', 'Stored', closed({ table: Type.String(), entries: Type.Integer() })),
  params: nameParams('Table name'),
  body: namespaceBody({
    entries: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), { description: 'key → value (numbers are written as text)' }),
  }),
});

export const importLookups = route({
  ...dtlRoute(
    'POST',
    '/lookups/import',
    'operator',
    'Import lookup tables from the IRIS lookup-table XML export (each table named in it is replaced)',
    'Imported',
    closed({ tables: Type.Array(Type.String()), entries: Type.Integer() }),
  ),
  body: namespaceBody({ xml: Type.String({ description: 'The <lookupTable> XML' }) }),
});

export const exportLookups = route({
  ...dtlRoute(
    'GET',
    '/lookups/export',
    'viewer',
    'The lookup tables (all, or those of `table`, comma-separated) in the IRIS lookup-table XML format',
    'XML',
    closed({ xml: Type.String() }),
  ),
  querystring: namespaceQuery({ table: Type.Optional(Type.String({ description: 'Table names, comma-separated (default: every table)' })) }),
});

export const deleteLookup = route({
  ...dtlRoute('DELETE', '/lookups/:name', 'operator', 'Delete a lookup table', 'Deleted', deleted),
  params: nameParams('Table name'),
});
