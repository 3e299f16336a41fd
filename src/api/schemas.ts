/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the API's parameters, bodies and replies. They
 * feed the OpenAPI document, and the tests check real replies against them.
 */
import { logTypes } from '../core/log.ts';
import type { JsonSchema, RouteParameter, RouteResponse } from './route-catalog.ts';

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const bool: JsonSchema = { type: 'boolean' };

export function object(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties), additional = false): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: additional };
}

export function arrayOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

export const errorSchema = object({ error: { type: 'string', minLength: 1 }, code: str }, ['error']);

export const namespaceQuery: RouteParameter = {
  name: 'namespace',
  in: 'query',
  description: 'Namespace (default USER). On POST and PUT a `namespace` field of the body wins.',
  schema: str,
};

export function queryParameter(name: string, description: string, schema: JsonSchema = str): RouteParameter {
  return { name, in: 'query', description, schema };
}

export function pathParameter(name: string, description: string): RouteParameter {
  return { name, in: 'path', description, schema: str, required: true };
}

export function ok(description: string, schema: JsonSchema): Record<number, RouteResponse> {
  return { 200: { description, schema } };
}

/** A body of a spec POST route that only carries the namespace. */
export const namespaceOnlyBody = { schema: object({ namespace: str }, []), required: false };

export const versionSchema = object({ version: str, description: str });
export const reportedStatus: JsonSchema = { type: 'string', enum: ['running', 'stopped', 'suspended', 'troubled', 'unknown'] };
export const statusSchema = object({ production: str, status: reportedStatus });
export const startedSchema = object({ status: { const: 'started' }, production: str });
export function lifecycleSchema(status: string): JsonSchema {
  return object({ status: { const: status } });
}

const timestamp: JsonSchema = { type: 'string', pattern: '^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})?$' };

export const listSchema: JsonSchema = {
  type: 'object',
  additionalProperties: object({
    Status: { type: 'string', enum: ['Running', 'Stopped', 'Suspended', 'Troubled', 'Unknown'] },
    LastStartTime: timestamp,
    LastStopTime: timestamp,
    AutoStart: bool,
  }),
};

export const defaultSchema = object({ production: str });

export const logEntrySchema = object({
  id: int,
  config_name: str,
  job: str,
  message_id: str,
  session_id: str,
  source_class: str,
  source_method: str,
  text: str,
  time_logged: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' },
  type: { type: 'string', enum: [...logTypes] },
});

export const exportSchema = object({
  name: str,
  description: str,
  test_enabled: bool,
  log_trace_events: bool,
  actor_pool_size: int,
  items: arrayOf(
    object({
      name: str,
      classname: str,
      pool_size: int,
      enabled: bool,
      foreground: bool,
      comment: str,
      log_trace_events: bool,
      schedule: str,
      settings: arrayOf(object({ target: { type: 'string', enum: ['Host', 'Adapter'] }, name: str, value: str })),
    }),
  ),
});

export const testBodySchema = object(
  {
    target: { type: 'string', minLength: 1, description: 'Config name of the item to call' },
    classname: { type: 'string', description: 'Python message class `module.Class`; omitted: an empty Ens.Request' },
    body: { type: ['object', 'string'], description: 'Message body, a JSON object or JSON text (default {})' },
    restart: { type: 'boolean', description: 'Restart only the target item first (default true)' },
    namespace: str,
  },
  ['target'],
);

export const testReplySchema = object({ classname: str, body: { type: 'string', maxLength: 1_000_000 }, truncated: bool });

export const migrateBodySchema = object(
  {
    namespace: str,
    remote_folder: { type: 'string', description: 'Absolute folder under an allowed root; default the namespace package directory' },
    package: { type: 'string', minLength: 1 },
    body: arrayOf(object({ name: str, data: str })),
    settings_file: { type: 'string', description: 'Entry file of the migration inside the package (default settings.py)' },
    strict_production_validation: bool,
    local_path: { type: 'string', description: 'Beyond the spec, local socket only: migrate this settings.py where it is (no upload)' },
  },
  [],
);

export const componentBodySchema = object({ component: str, item: str, namespace: str }, []);
export function componentReplySchema(status: string): JsonSchema {
  return object({ status: { const: status }, component: str });
}

export const queuesSchema = object({
  production: str,
  items: arrayOf(object({ item: str, queue_name: str, class_name: str, exists: { enum: [0, 1] }, count: int })),
  warnings: arrayOf(str),
});

export const connectionsSchema = object({
  production: str,
  items: arrayOf(
    object(
      {
        item: str,
        class_name: str,
        kind: { type: 'string', enum: ['service', 'process', 'operation', 'component'] },
        adapter_class_name: str,
        iop: { const: 1 },
        module: str,
        classname: str,
        classpaths: str,
        connections: arrayOf(str),
        warnings: arrayOf(str),
      },
      ['item', 'class_name', 'kind', 'connections', 'warnings'],
    ),
  ),
  warnings: arrayOf(str),
});

const atelierStatus = object({ errors: arrayOf({ type: 'object' }), summary: str });
export const atelierPutBodySchema = object({ enc: bool, content: arrayOf(str) }, ['content']);
export const atelierReplySchema = object({ status: atelierStatus, console: arrayOf(str), result: { type: 'object' } }, ['status', 'console', 'result'], true);
