/**
 * The portal's DTL routes: transforms (list, get with history, put, delete, compile, run), schemas
 * (list, get, tree, import, delete) and lookup tables (list, get, put, delete, import and export in
 * the IRIS lookup-table XML format). Without a DTL service the server answers 501.
 */
import { Type, type Static } from 'typebox';
import { anyJson, closed, documentRoute, namespaceBody, namespaceQuery, pathText, route } from './route.ts';

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
  position: Type.Optional(
    Type.String({ description: 'The action it is about: its path in the graph, dot-joined (`2.actions.0`, `1.whenTrue.3`); absent for the transform itself' }),
  ),
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

export const listTransforms = route(
  documentRoute(tag, 'GET', '/transforms', 'viewer', 'The DTL transforms of the namespace', 'Transforms', closed({ transforms: Type.Array(transformSummary) })),
);

export const getTransform = route({
  ...documentRoute(
    tag,
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
  ...documentRoute(
    tag,
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
  ...documentRoute(tag, 'DELETE', '/transforms/:name', 'operator', 'Delete a transform and its history', 'Deleted', deleted),
  params: nameParams('Transform class name'),
});

export const compileTransform = route({
  ...documentRoute(
    tag,
    'POST',
    '/transforms/compile',
    'viewer',
    'Parse and validate a transform document; positioned diagnostics',
    'Diagnostics',
    closed({ ok: Type.Boolean(), diagnostics: Type.Array(diagnostic) }),
  ),
  body: namespaceBody({ source: Type.String({ description: 'The <transform> XML' }) }),
});

const flag = (description: string) => Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { description }));

/** The transform parameters of `Ens.DataTransformDTL` (dtl-reference §1.15), 0 or 1 each. */
const runParameters = closed(
  {
    IGNOREMISSINGSOURCE: flag('1: a direct copy from an absent source is skipped; 0: it is an error ("property not found")'),
    REPORTERRORS: flag('1: action errors make the run fail and are returned; 0: they are traced (category xform) and the run is ok'),
    TREATEMPTYREPEATINGFIELDASNULL: flag('1: an empty repeating field is not iterated nor copied'),
    GENERATEEMPTYSEGMENTS: flag('1 (with IGNOREMISSINGSOURCE=1): an absent source writes "" instead of nothing'),
  },
  "This run's parameters over the transform's own (the others keep theirs; subtransforms keep their own)",
);

const actionName = Type.String({ description: 'The action: assign, foreach, if, switch, trace, code, sql, subtransform… ("" outside any action)' });
const actionPath = Type.String({
  description: 'Where the action is in the graph: its path, dot-joined (`2.actions.0`, `1.whenTrue.3`, `0.cases.1.actions.0`)',
});

const traceEntry = closed({
  category: Type.Union([Type.Literal('user'), Type.Literal('xform')], {
    description: 'user: <trace> or $$$TRACE/$$$LOG… in code; xform: an action error traced because REPORTERRORS=0',
  }),
  action: actionName,
  position: actionPath,
  value: Type.Unsafe<unknown>({ description: 'What was traced, as JSON (a structure stays one); for xform, the error message' }),
  text: Type.String({ description: 'The value as text' }),
  line: Type.Integer({ description: 'Line of the action in the XML' }),
  level: Type.Optional(Type.Union([Type.Literal('Info'), Type.Literal('Warning'), Type.Literal('Error'), Type.Literal('Alert')])),
});

const errorEntry = closed({
  kind: Type.Union([Type.Literal('action'), Type.Literal('runtime')], {
    description: 'action: collected, the run went on; runtime: an ObjectScript error that ended the run',
  }),
  message: Type.String(),
  line: Type.Integer(),
  column: Type.Integer(),
  action: actionName,
  position: actionPath,
});

export const runTransform = route({
  ...documentRoute(
    tag,
    'POST',
    '/transforms/run',
    'viewer',
    'Run a stored transform (`name`) or a document (`source`) on a source message: `json`, or the spec\'s test `envelope` `<test><Message><json><![CDATA[…]]></json></Message></test>`; with an initial `target` (create="existing"), `aux` and this run\'s `parameters`',
    'Result',
    closed({
      target: anyJson,
      targetClass: Type.String(),
      status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
      errors: Type.Array(Type.String(), { description: '`document:line:column: message` of each error' }),
      trace: Type.Array(Type.String(), { description: 'The text of each trace entry' }),
      errorEntries: Type.Array(errorEntry, { description: 'The errors, structured (same order as errors)' }),
      traceEntries: Type.Array(traceEntry, { description: 'The trace, structured (same order as trace)' }),
    }),
  ),
  body: namespaceBody({
    name: Type.Optional(Type.String({ description: 'A stored transform' })),
    source: Type.Optional(Type.String({ description: 'A <transform> document' })),
    classname: Type.Optional(Type.String()),
    json: Type.Optional(anyJson),
    envelope: Type.Optional(Type.String({ description: 'The test envelope XML' })),
    target: Type.Optional(Type.Unsafe<unknown>({ description: 'The initial target, for a create="existing" transform (refused otherwise)' })),
    aux: Type.Optional(Type.Unsafe<unknown>({ description: 'The aux value the transform reads (`aux.{…}`)' })),
    parameters: Type.Optional(runParameters),
    sqlHost: Type.Optional(Type.String({ description: 'The SQL host `<sql>` runs on (default `default`)' })),
  }),
});

const schemaSummary = closed({ name: Type.String(), category: Type.String(), updatedAt: Type.Integer() });

export const listSchemas = route(
  documentRoute(tag, 'GET', '/schemas', 'viewer', 'The schemas usable as DTL doc types', 'Schemas', closed({ schemas: Type.Array(schemaSummary) })),
);

export const getSchema = route({
  ...documentRoute(
    tag,
    'GET',
    '/schemas/:name',
    'viewer',
    'A schema document',
    'Schema',
    closed({ name: Type.String(), category: Type.String(), schema: anyJson }),
  ),
  params: nameParams('Schema name'),
});

export const schemaTree = route({
  ...documentRoute(
    tag,
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
  ...documentRoute(
    tag,
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
  ...documentRoute(tag, 'DELETE', '/schemas/:name', 'operator', 'Delete a schema', 'Deleted', deleted),
  params: nameParams('Schema name'),
});

export const listLookups = route(
  documentRoute(tag, 'GET', '/lookups', 'viewer', 'The lookup tables of the namespace', 'Tables', closed({ tables: Type.Array(Type.String()) })),
);

export const getLookup = route({
  ...documentRoute(
    tag,
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
  ...documentRoute(
    tag,
    'PUT',
    '/lookups/:name',
    'operator',
    'Create or replace a lookup table',
    'Stored',
    closed({ table: Type.String(), entries: Type.Integer() }),
  ),
  params: nameParams('Table name'),
  body: namespaceBody({
    entries: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), { description: 'key → value (numbers are written as text)' }),
  }),
});

export const importLookups = route({
  ...documentRoute(
    tag,
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
  ...documentRoute(
    tag,
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
  ...documentRoute(tag, 'DELETE', '/lookups/:name', 'operator', 'Delete a lookup table', 'Deleted', deleted),
  params: nameParams('Table name'),
});
