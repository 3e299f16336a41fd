import { Ajv2020 } from 'ajv/dist/2020.js';
import type { MonitorItem } from '../engine/monitor/monitor-report.ts';
import type { StoredAlert } from '../store/alerts.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
let document: { openapi: string; info: Record<string, unknown>; paths: Record<string, Record<string, OpenApiOperation>> };

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}

/** A structural check of the OpenAPI 3.1 shape our document uses (no OpenAPI validator is installed). */
const openApiShape = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        propertyNames: { enum: ['get', 'put', 'post', 'delete', 'patch'] },
        additionalProperties: {
          type: 'object',
          required: ['responses', 'operationId'],
          properties: {
            parameters: {
              type: 'array',
              items: { type: 'object', required: ['name', 'in', 'schema'], properties: { in: { enum: ['query', 'path', 'header'] } } },
            },
            requestBody: { type: 'object', required: ['content'] },
            responses: { type: 'object', minProperties: 1, additionalProperties: { type: 'object', required: ['description'] } },
          },
        },
      },
    },
  },
};

beforeAll(async () => {
  h = await createHarness();
  document = (await h.app.inject({ url: '/api/iop/openapi.json', headers: h.auth('viewer') })).json();
});
afterAll(async () => h.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document whose schemas compile', () => {
    const ajv = new Ajv2020({ strict: false });
    expect(ajv.validate(openApiShape, document), JSON.stringify(ajv.errors)).toBe(true);
    const ids = new Set<string>();
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        expect(ids.has(operation.operationId), operation.operationId).toBe(false);
        ids.add(operation.operationId);
        for (const response of Object.values(operation.responses))
          for (const media of Object.values(response.content ?? {})) ajv.compile(withComponents(media.schema));
      }
    }
  });

  it('is the same under the /v1 alias', async () => {
    expect((await h.app.inject({ url: '/api/iop/v1/openapi.json', headers: h.auth('viewer') })).json()).toEqual(document);
  });

  it('describes what every route answers: one real response of each route validates', async () => {
    await h.app.inject({ method: 'PUT', url: '/api/iop/default', headers: h.auth('admin'), payload: { production: 'Demo.Production' } });
    h.engine.addLog('USER', 3);
    h.engine.alerts = [sampleAlert];
    h.engine.monitorItems = [sampleMonitorItem];
    const calls: Array<{ op: string; url: string; payload?: unknown; status?: number }> = [
      { op: 'get /api/iop/version', url: '/api/iop/version' },
      { op: 'get /api/iop/status', url: '/api/iop/status' },
      { op: 'post /api/iop/start', url: '/api/iop/start', payload: {} },
      { op: 'post /api/iop/update', url: '/api/iop/update' },
      { op: 'post /api/iop/restart', url: '/api/iop/restart' },
      { op: 'post /api/iop/test', url: '/api/iop/test', payload: { target: 'Python.FileOperation' } },
      { op: 'post /api/iop/component/stop', url: '/api/iop/component/stop', payload: { component: 'Python.FileOperation' } },
      { op: 'post /api/iop/component/start', url: '/api/iop/component/start', payload: { component: 'Python.FileOperation' } },
      { op: 'post /api/iop/component/restart', url: '/api/iop/component/restart', payload: { component: 'Python.FileOperation' } },
      { op: 'post /api/iop/component/input', url: '/api/iop/component/input', payload: { service: 'Python.FileService', body: { a: 1 } } },
      { op: 'get /api/iop/queues', url: '/api/iop/queues' },
      { op: 'get /api/iop/connections', url: '/api/iop/connections' },
      { op: 'get /api/iop/nodes', url: '/api/iop/nodes' },
      { op: 'get /api/iop/controls/queues', url: '/api/iop/controls/queues' },
      { op: 'post /api/iop/controls/queues/{item}/suspend', url: '/api/iop/controls/queues/Python.FileOperation/suspend', payload: {} },
      { op: 'post /api/iop/controls/queues/{item}/resume', url: '/api/iop/controls/queues/Python.FileOperation/resume', payload: {} },
      { op: 'get /api/iop/controls/messages/{id}', url: '/api/iop/controls/messages/5' },
      { op: 'get /api/iop/controls/suspended', url: '/api/iop/controls/suspended?target=Python.FileOperation&limit=10' },
      { op: 'post /api/iop/controls/messages/abort', url: '/api/iop/controls/messages/abort', payload: { ids: [5] } },
      { op: 'post /api/iop/controls/messages/discard', url: '/api/iop/controls/messages/discard', payload: { ids: [5] } },
      { op: 'post /api/iop/controls/messages/resend', url: '/api/iop/controls/messages/resend', payload: { ids: [5, 6], target: 'Python.FileOperation' } },
      { op: 'post /api/iop/controls/messages/{id}/edit-resend', url: '/api/iop/controls/messages/5/edit-resend', payload: { body: { a: 1 } } },
      { op: 'get /api/iop/monitor', url: '/api/iop/monitor' },
      { op: 'get /api/iop/alerts', url: '/api/iop/alerts?state=open' },
      { op: 'post /api/iop/alerts/acknowledge', url: '/api/iop/alerts/acknowledge', payload: { ids: [1] } },
      { op: 'get /api/iop/messages/search', url: '/api/iop/messages/search?body=%24.patient.id%20%3D%2042&limit=10' },
      { op: 'get /api/iop/messages/export/csv', url: '/api/iop/messages/export/csv?source=Python.FileService' },
      { op: 'get /api/iop/messages/export/ndjson', url: '/api/iop/messages/export/ndjson?status=completed' },
      { op: 'post /api/iop/messages/purge', url: '/api/iop/messages/purge', payload: { keepDays: 30, dryRun: true } },
      { op: 'get /api/iop/retention', url: '/api/iop/retention' },
      { op: 'put /api/iop/retention', url: '/api/iop/retention', payload: { messageDays: 30, logDays: 7, maxStoreBytes: null } },
      { op: 'put /api/iop/rules/{name}', url: '/api/iop/rules/Demo.Rules', payload: { source: SAMPLE_RULE } },
      { op: 'get /api/iop/rules', url: '/api/iop/rules' },
      { op: 'get /api/iop/rules/{name}', url: '/api/iop/rules/Demo.Rules' },
      { op: 'post /api/iop/rules/compile', url: '/api/iop/rules/compile', payload: { source: SAMPLE_RULE } },
      { op: 'post /api/iop/rules/test', url: '/api/iop/rules/test', payload: { name: 'Demo.Rules', classname: 'msg.Order', json: { a: 1 }, from: 'In' } },
      { op: 'get /api/iop/rules/log', url: '/api/iop/rules/log?rule=Demo.Rules' },
      { op: 'delete /api/iop/rules/{name}', url: '/api/iop/rules/Demo.Rules' },
      { op: 'get /api/iop/list', url: '/api/iop/list' },
      { op: 'post /api/iop/stop', url: '/api/iop/stop' },
      { op: 'post /api/iop/kill', url: '/api/iop/kill' },
      { op: 'get /api/iop/default', url: '/api/iop/default' },
      { op: 'put /api/iop/default', url: '/api/iop/default', payload: { production: 'Demo.Production' } },
      { op: 'get /api/iop/log', url: '/api/iop/log?top=2' },
      { op: 'get /api/iop/export', url: '/api/iop/export' },
      { op: 'put /api/iop/migrate', url: '/api/iop/migrate', payload: { package: 'p', body: [{ name: 'settings.py', data: '' }] } },
      { op: 'get /api/iop/openapi.json', url: '/api/iop/openapi.json' },
      { op: 'put /api/iop/users/{name}', url: '/api/iop/users/frank', payload: { password: 'pw', role: 'viewer' } },
      { op: 'get /api/iop/users', url: '/api/iop/users' },
      { op: 'post /api/iop/users/{name}/role', url: '/api/iop/users/frank/role', payload: { role: 'operator' } },
      { op: 'post /api/iop/users/{name}/password', url: '/api/iop/users/frank/password', payload: { password: 'pw2' } },
      { op: 'post /api/iop/users/{name}/disable', url: '/api/iop/users/frank/disable' },
      { op: 'post /api/iop/users/{name}/enable', url: '/api/iop/users/frank/enable' },
      { op: 'delete /api/iop/users/{name}', url: '/api/iop/users/frank' },
      {
        op: 'put /api/atelier/v1/{namespace}/doc/{name}',
        url: '/api/atelier/v1/USER/doc/A.B.cls',
        payload: { enc: false, content: ['Class A.B {}'] },
        status: 201,
      },
      { op: 'get /api/atelier/v1/{namespace}/doc/{name}', url: '/api/atelier/v1/USER/doc/A.B.cls' },
      { op: 'post /api/atelier/v1/{namespace}/action/compile', url: '/api/atelier/v1/USER/action/compile', payload: ['A.B.cls'] },
      { op: 'get /metrics', url: '/metrics' },
      { op: 'get /api/iop/bindings', url: '/api/iop/bindings?unused=1' },
      { op: 'delete /api/iop/binding', url: '/api/iop/binding?class=Python.Nope', status: 404 },
      ...(['validate', 'diff', 'plan'] as const).map((action) => ({
        op: `post /api/iop/production/${action}`,
        url: `/api/iop/production/${action}`,
        payload: { definition: { name: 'Demo.Production', items: [] } },
      })),
      {
        op: 'post /api/iop/production/apply',
        url: '/api/iop/production/apply',
        payload: { definition: { name: 'Demo.Production', items: [] }, allow_destructive: true },
      },
      { op: 'get /api/iop/production/previous', url: '/api/iop/production/previous?production=Demo.Production' },
      { op: 'post /api/iop/production/rollback', url: '/api/iop/production/rollback', payload: { production: 'Demo.Production' } },
      { op: 'get /api/iop/status (error)', url: '/api/iop/status?namespace=NOPE', status: 500 },
      { op: 'post /api/iop/component/start (error)', url: '/api/iop/component/start', payload: { component: 'Nope' }, status: 409 },
    ];
    const ajv = new Ajv2020({ strict: false });
    const covered = new Set<string>();
    for (const call of calls) {
      const [method = '', template = ''] = call.op.split(' ');
      const operation = document.paths[template]?.[method];
      expect(operation, call.op).toBeDefined();
      covered.add(`${method} ${template}`);
      const response = await h.app.inject({
        method: method.toUpperCase() as 'GET',
        url: call.url,
        headers: h.auth('admin'),
        ...(call.payload === undefined ? {} : { payload: call.payload as object }),
      });
      const status = call.status ?? 200;
      expect(response.statusCode, `${call.op}: ${response.body}`).toBe(status);
      const described = operation?.responses[String(status)] ?? operation?.responses.default;
      expect(described, `${call.op} documents ${status}`).toBeDefined();
      const media = Object.entries(described?.content ?? {})[0];
      if (!media) {
        expect(response.body, call.op).toBe('');
        continue;
      }
      expect(response.headers['content-type'], call.op).toContain(media[0].split(';')[0]);
      const body = media[0].startsWith('application/json') ? response.json() : response.body;
      const valid = ajv.validate(withComponents(media[1].schema), body);
      expect(valid, `${call.op}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    const all = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect([...covered].sort()).toEqual(all.sort());
  });
});

const SAMPLE_RULE =
  'Class Demo.Rules Extends Ens.Rule.Definition\n{\nXData RuleDefinition\n{\n<ruleDefinition><ruleSet><rule><when condition="1"><send target="Op"/></when></rule></ruleSet></ruleDefinition>\n}\n}';

const sampleAlert: StoredAlert = {
  id: 1,
  namespace: 'USER',
  source: 'Python.FileOperation',
  category: 'failure',
  key: 'boom',
  text: 'Item Python.FileOperation failed on message 3: boom',
  firstTime: 1,
  lastTime: 2,
  count: 2,
  acknowledged: false,
  acknowledgedBy: null,
  acknowledgedAt: null,
};

const sampleMonitorItem: MonitorItem = {
  name: 'Python.FileOperation',
  classname: 'Python.FileOperation',
  kind: 'operation',
  enabled: true,
  status: 'running',
  error: null,
  jobs: 1,
  messagesIn: 3,
  messagesOut: 0,
  processed: 2,
  failed: 1,
  lastActivity: 5,
  meanMs: 1.5,
  p95Ms: 2,
  rate1m: 0.05,
  rate5m: 0.01,
  queued: 0,
  inProgress: 0,
  queueCountAlert: 0,
  inactivityTimeout: 0,
  trouble: null,
};

/** Schemas may `$ref` the document's components; resolve them by embedding the components as $defs. */
function withComponents(schema: Record<string, unknown>): Record<string, unknown> {
  const components = (document as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
  const text = JSON.stringify(schema).replace(/#\/components\/schemas\//g, '#/$defs/');
  return { ...JSON.parse(text), $defs: components };
}
