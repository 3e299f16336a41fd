/**
 * The routes of the spec's "Routes" table: version, status, the lifecycle commands, list, default
 * production, log, export, test and migrate. Their request shapes are the spec's (plus `namespace`
 * everywhere, spec rule 3); what the real IoP client sends (iop-reference §2.3, §2.6) fits them.
 */
import { Type } from 'typebox';
import { exportDefinition, iopExportDefinition, logEntry, productionList, reportedStatus } from './production-shapes.ts';
import { anyJson, closed, namespaceBody, namespaceQuery, ok, route } from './route.ts';

const tag = 'Productions';
const productionField = Type.String({ description: 'Production name' });

export const version = route({
  method: 'GET',
  path: '/version',
  role: 'viewer',
  spec: true,
  tag,
  summary: 'API version and description',
  querystring: namespaceQuery(),
  replies: ok('The version', closed({ version: Type.String(), description: Type.String() })),
});

export const status = route({
  method: 'GET',
  path: '/status',
  role: 'viewer',
  spec: true,
  tag,
  summary: 'The current (or last) production of the namespace and its status',
  querystring: namespaceQuery(),
  replies: ok('Production and status', closed({ production: Type.String(), status: reportedStatus })),
});

export const start = route({
  method: 'POST',
  path: '/start',
  role: 'operator',
  spec: true,
  tag,
  summary: 'Start the named production, or the default (last-used) one',
  querystring: namespaceQuery(),
  body: namespaceBody({ production: Type.Optional(Type.String({ description: 'Production name (default: the default production)' })) }),
  replies: ok('Started', closed({ status: Type.Literal('started'), production: Type.String() })),
});

function lifecycle<const S extends string>(path: string, status: S, summary: string) {
  return route({
    method: 'POST',
    path,
    role: 'operator',
    spec: true,
    tag,
    summary,
    querystring: namespaceQuery(),
    body: namespaceBody(),
    replies: ok(summary, closed({ status: Type.Literal(status) })),
  });
}

export const stop = lifecycle('/stop', 'stopped', 'Stop the running production (queues drain, hooks run)');
export const kill = lifecycle('/kill', 'killed', 'Force-stop the production; in-flight messages stay queued');
export const restart = lifecycle('/restart', 'restarted', 'Stop and start the running production');
export const update = lifecycle('/update', 'updated', 'Apply the stored definition to the running production');

export const list = route({
  method: 'GET',
  path: '/list',
  role: 'viewer',
  spec: true,
  tag,
  summary: 'The productions of the namespace, keyed by name',
  querystring: namespaceQuery(),
  replies: ok('Productions', productionList),
});

const defaultReply = closed({ production: Type.String() });

export const getDefault = route({
  method: 'GET',
  path: '/default',
  role: 'viewer',
  spec: true,
  tag,
  summary: "The namespace's default production ('' when none)",
  querystring: namespaceQuery(),
  replies: ok('Default production', defaultReply),
});

export const setDefault = route({
  method: 'PUT',
  path: '/default',
  role: 'admin',
  spec: true,
  tag,
  summary: 'Set the default production of the namespace',
  querystring: namespaceQuery(),
  body: namespaceBody({ production: productionField }),
  replies: ok('The new default', defaultReply),
});

const logCount = Type.Integer({ minimum: 0 });

export const log = route({
  method: 'GET',
  path: '/log',
  role: 'viewer',
  spec: true,
  tag,
  summary: 'Event log: the newest `top` entries newest first, or with `since_id` the entries after it, ascending',
  querystring: namespaceQuery({
    top: Type.Optional({
      ...logCount,
      description: 'Number of newest entries (default 10, at most the server maximum, 1000 by default); ignored with since_id',
    }),
    since_id: Type.Optional({ ...logCount, description: 'Only entries with a greater id, ascending (at most the server maximum per call)' }),
  }),
  replies: ok('Log entries', Type.Array(logEntry)),
});

export const exportProduction = route({
  method: 'GET',
  path: '/export',
  role: 'viewer',
  spec: true,
  tag,
  summary: "The definition of a production (default: the last-used one); IoP's export form when the server runs with exportFormat: iop",
  querystring: namespaceQuery({ production: Type.Optional(Type.String({ description: 'Production name (default: the default production)' })) }),
  replies: ok('Production definition', Type.Union([exportDefinition, iopExportDefinition])),
});

/** Test replies carry at most this many characters of the response body (architecture §8). */
export const testBodyLimit = 1_000_000;

export const test = route({
  method: 'POST',
  path: '/test',
  role: 'operator',
  spec: true,
  tag,
  summary: 'Send a test message synchronously to an item of the running production',
  querystring: namespaceQuery(),
  body: namespaceBody({
    target: Type.String({ description: 'Config name of the item to call' }),
    classname: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Python message class `module.Class`; omitted: an empty Ens.Request' })),
    body: Type.Optional(
      Type.Union([Type.String(), Type.Record(Type.String(), anyJson), Type.Null()], { description: 'Message body, a JSON object or JSON text (default {})' }),
    ),
    restart: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Restart only the target item first (default true)' })),
    timeout: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 2147483 }), Type.Null()], {
        description:
          'Beyond the spec: seconds to wait for the reply (default 300, at most 2147483, the longest timer); past it the call fails and the stuck item goes to error',
      }),
    ),
  }),
  replies: ok(
    "The target's response; body cut at 1,000,000 characters. An item that answers nothing gives classname '' and body ''",
    closed({ classname: Type.String(), body: Type.String({ maxLength: testBodyLimit }), truncated: Type.Boolean() }),
  ),
});

export const packageFile = closed({
  name: Type.String({ description: 'Path relative to the package folder, / separated' }),
  data: Type.String({ description: 'UTF-8 text of the file' }),
});

export const migrate = route({
  method: 'PUT',
  path: '/migrate',
  role: 'admin',
  spec: true,
  tag,
  summary: 'Upload a Python package (replacing its previous version) and run its settings.py migration',
  querystring: namespaceQuery(),
  body: namespaceBody({
    remote_folder: Type.Optional(Type.String({ description: 'Absolute folder under an allowed root; default (or empty) the namespace package directory' })),
    package: Type.Optional(Type.String({ description: 'Folder name of the package (required unless local_path)' })),
    body: Type.Optional(Type.Array(packageFile, { description: 'The files to write (required unless local_path)' })),
    settings_file: Type.Optional(Type.String({ description: 'Entry file of the migration inside the package (default settings.py)' })),
    strict_production_validation: Type.Optional(Type.Boolean()),
    local_path: Type.Optional(Type.String({ description: 'Beyond the spec, local socket only: migrate this settings.py where it is (no upload)' })),
  }),
  replies: { 200: { description: 'Migrated; the body is empty (with local_path, over the local socket: {"output": [console lines]})' } },
});

/** Beyond the spec: what `PUT /migrate` with `local_path` answers (the migration's console lines). */
export const migrateLocalReply = closed({ output: Type.Array(Type.String()) });
