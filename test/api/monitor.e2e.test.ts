/**
 * The live monitor and the alerts end to end, on a real `conveyor serve` (SQLite store, python3
 * workers): a Python operation with AlertOnError that fails a message, an item silent past its
 * InactivityTimeout, a queue past its QueueCountAlert (requests waiting behind one the job holds),
 * a Python operation named Ens.Alert receiving the alert requests, GET /monitor,
 * GET /alerts and the acknowledgement, the Prometheus figures, and the alerts surviving a restart.
 */
import { writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';
import { OpenApiCheck, type OpenApiDocument } from './support/openapi-check.ts';

const fixture = fileURLToPath(new URL('./fixtures/monitor', import.meta.url));
const credentials = { admin: 'admin:monitor-admin-pw', viewer: 'watcher:monitor-viewer-pw' } as const;
const production = 'Monitor.Production';

let home: ReturnType<typeof tempDir>;
let server: ServerProcess;
let openapi: OpenApiCheck;

interface MonitorJson {
  node: string;
  production: string;
  status: string;
  health: string;
  reason: string;
  open_alerts: number;
  items: Array<Record<string, unknown> & { name: string }>;
}

interface AlertJson {
  id: number;
  source: string;
  category: string;
  text: string;
  count: number;
  acknowledged: boolean;
  acknowledged_by: string | null;
}

async function api(method: string, path: string, body?: unknown, who: keyof typeof credentials = 'admin'): Promise<HttpReply> {
  const headers = { authorization: `Basic ${Buffer.from(credentials[who]).toString('base64')}` };
  const reply = await httpCall({ url: server.url, headers }, method, path, body);
  // This suite's own routes are checked against the server's OpenAPI document.
  if (reply.status === 200 && openapi && /^\/api\/iop\/(monitor|alerts)/.test(path))
    openapi.check(method, path.split('?')[0] as string, reply.status, reply.json);
  return reply;
}

async function startServer(): Promise<void> {
  server = await startServerProcess(home.path, [], { CONVEYOR_ADMIN_USER: 'admin', CONVEYOR_ADMIN_PASSWORD: 'monitor-admin-pw' });
  const document = await api('GET', '/api/iop/openapi.json');
  openapi = new OpenApiCheck(document.json as OpenApiDocument);
}

const monitor = async () => (await api('GET', '/api/iop/monitor')).json as MonitorJson;
const alerts = async (state = 'all') => ((await api('GET', `/api/iop/alerts?state=${state}`)).json as { alerts: AlertJson[] }).alerts;
const itemOf = (report: MonitorJson, name: string) => report.items.find((item) => item.name === name);

/** Retries until `check` passes (alerts and figures settle off the request's path); a timeout says its last failure. */
function settled<T>(check: () => Promise<T>, what: string): Promise<T> {
  return eventually(async () => ({ value: await check() }), what).then((done) => done.value);
}

beforeAll(async () => {
  home = tempDir('conveyor-monitor-e2e-');
  await startServer();
  const files = (await readdir(fixture, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  const body = await Promise.all(
    files.map(async (entry) => ({
      name: relative(fixture, join(entry.parentPath, entry.name)),
      data: await readFile(join(entry.parentPath, entry.name), 'utf8'),
    })),
  );
  const migrated = await api('PUT', '/api/iop/migrate', { package: 'monitorpkg', body });
  expect(migrated.status, migrated.text).toBe(200);
  expect((await api('PUT', '/api/iop/users/watcher', { password: 'monitor-viewer-pw', role: 'viewer' })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.kill();
  home?.remove();
});

describe('GET /monitor', () => {
  it('says the production is down, and why, while it does not run', async () => {
    expect((await api('PUT', '/api/iop/default', { production })).status).toBe(200);
    const report = await monitor();
    expect(report).toMatchObject({ production, status: 'stopped', health: 'down', reason: `Production ${production} is stopped` });
    expect(report.items.map((item) => [item.name, item.status])).toEqual([
      ['Router', 'stopped'],
      ['Worker', 'stopped'],
      ['Idle', 'stopped'],
      ['Ens.Alert', 'stopped'],
    ]);
  });

  it('counts what each item handles; a failed message degrades the production and raises an alert sent to Ens.Alert', async () => {
    expect((await api('POST', '/api/iop/start', { production })).status).toBe(200);
    const passed = await api('POST', '/api/iop/test', { target: 'Router', classname: 'jobs.Job', body: { fail: false } });
    expect(passed.status, passed.text).toBe(200);
    const failed = await api('POST', '/api/iop/test', { target: 'Worker', classname: 'jobs.Job', body: { fail: true } });
    expect(failed.status).toBe(500);
    expect(failed.text).toContain('the job was asked to fail');

    const report = await settled(async () => {
      const current = await monitor();
      expect(itemOf(current, 'Worker')?.messages_in_error).toBe(1);
      return current;
    }, 'the failure in the figures');
    expect(report.status).toBe('running');
    expect(report.node).not.toBe('');
    const worker = itemOf(report, 'Worker')!;
    expect(worker).toMatchObject({ status: 'running', messages_in: 2, processed: 1, messages_in_error: 1, queued: 0, in_progress: 0 });
    expect(worker.mean_ms).toEqual(expect.any(Number));
    expect(worker.p95_ms).toEqual(expect.any(Number));
    expect(worker.rate_1m as number).toBeCloseTo(2 / 60);
    expect(worker.rate_5m as number).toBeCloseTo(2 / 300);
    expect(Date.parse(worker.last_activity as string)).toBeGreaterThan(Date.now() - 120_000);
    expect(itemOf(report, 'Router')).toMatchObject({ messages_in: 1, messages_out: 1, processed: 1 });
    expect(report.health).toBe('degraded');
    expect(report.reason).toContain('Worker failed 1 message in the last minute');

    const [failure] = await settled(async () => {
      const found = (await alerts()).filter((alert) => alert.category === 'failure');
      expect(found).toHaveLength(1);
      return found;
    }, 'the failure alert');
    expect(failure).toMatchObject({ source: 'Worker', count: 1, acknowledged: false });
    expect(failure!.text).toMatch(/^Item Worker failed on message \d+: .*the job was asked to fail/s);
    // The production's Ens.Alert item (a Python operation) received it as an Ens.AlertRequest.
    await settled(async () => {
      const log = (await api('GET', '/api/iop/log?top=200')).json as Array<{ text: string; type: string; config_name?: string }>;
      const received = log.filter((entry) => entry.text.startsWith('alert received from Worker: Item Worker failed on message'));
      expect(received).toHaveLength(1);
      expect(log.some((entry) => entry.type === 'Alert' && entry.text.startsWith('Item Worker failed on message'))).toBe(true);
    }, 'the alert at Ens.Alert and in the event log');
  });

  it('counts a repeat within the AlertActionWindow into the open alert without sending it again', async () => {
    expect((await api('POST', '/api/iop/test', { target: 'Worker', classname: 'jobs.Job', body: { fail: true } })).status).toBe(500);
    await settled(async () => {
      const found = (await alerts('open')).filter((alert) => alert.category === 'failure');
      expect(found.map((alert) => alert.count)).toEqual([2]);
    }, 'the repeat counted');
    const log = (await api('GET', '/api/iop/log?top=300')).json as Array<{ text: string }>;
    expect(log.filter((entry) => entry.text.startsWith('alert received from Worker')).length).toBe(1);
  });

  it('marks an item silent past its InactivityTimeout inactive and raises an inactivity alert', async () => {
    const report = await settled(async () => {
      const current = await monitor();
      expect(itemOf(current, 'Idle')?.status).toBe('inactive');
      return current;
    }, 'Idle inactive');
    expect(report.health).toBe('degraded');
    expect(report.reason).toContain('Idle is inactive (no activity for 1 s)');
    await settled(async () => {
      const found = (await alerts()).find((alert) => alert.category === 'inactivity');
      expect(found).toMatchObject({ source: 'Idle', count: 1 });
      expect(found!.text).toMatch(/^Item Idle has been inactive for \d+ s, past its InactivityTimeout of 1 s$/);
    }, 'the inactivity alert');
  });

  it('gives the same figures to Prometheus', async () => {
    const metrics = (await api('GET', '/metrics')).text.split('\n');
    expect(metrics).toContain('conveyor_item_messages_in_error_total{namespace="USER",item="Worker"} 2');
    expect(metrics).toContain('conveyor_item_messages_in_total{namespace="USER",item="Worker"} 3');
    expect(metrics).toContain('conveyor_item_status{namespace="USER",item="Idle",status="inactive"} 1');
    expect(metrics).toContain(`conveyor_production_health{namespace="USER",production="${production}",health="degraded"} 1`);
    expect(metrics.some((line) => /^conveyor_item_processing_seconds\{namespace="USER",item="Worker",quantile="0.95"\} [0-9.e-]+$/.test(line))).toBe(true);
  });
});

describe('QueueCountAlert', () => {
  it('degrades the production and raises one queue alert while the queue is past it', async () => {
    const release = join(home.path, 'release-the-job');
    // Worker has one job: the first request holds it, the next three wait in its queue (QueueCountAlert 2).
    // restart: false, or each test call would restart Worker (POST /test's default) under the held request.
    const held = api('POST', '/api/iop/test', { target: 'Worker', classname: 'jobs.Job', body: { release }, restart: false });
    await settled(async () => expect(itemOf(await monitor(), 'Worker')?.in_progress).toBe(1), 'the held request in progress');
    const waiting = [1, 2, 3].map(() => api('POST', '/api/iop/test', { target: 'Worker', classname: 'jobs.Job', body: {}, restart: false }));
    const report = await settled(async () => {
      const current = await monitor();
      expect(itemOf(current, 'Worker')).toMatchObject({ queued: 3, in_progress: 1, queue_count_alert: 2 });
      expect(current.reason).toContain('Worker has 3 queued messages (QueueCountAlert 2)');
      return current;
    }, 'the queue past its threshold');
    expect(report.health).toBe('degraded');
    await settled(async () => {
      const found = (await alerts('open')).filter((alert) => alert.category === 'queue');
      expect(found.map((alert) => [alert.source, alert.count, alert.text])).toEqual([
        ['Worker', 1, 'Queue of Worker has 3 messages, past its QueueCountAlert of 2'],
      ]);
    }, 'the queue alert');
    writeFileSync(release, '');
    expect((await held).status).toBe(200);
    for (const reply of await Promise.all(waiting)) expect(reply.status).toBe(200);
    await settled(async () => expect(itemOf(await monitor(), 'Worker')).toMatchObject({ queued: 0, in_progress: 0 }), 'the queue drained');
    expect((await alerts()).filter((alert) => alert.category === 'queue')).toHaveLength(1);
  });
});

describe('GET /alerts, POST /alerts/acknowledge', () => {
  it('refuses a viewer the acknowledgement, and bad input with a clear error', async () => {
    const [first] = await alerts('open');
    const refused = await api('POST', '/api/iop/alerts/acknowledge', { ids: [first!.id] }, 'viewer');
    expect(refused.status).toBe(403);
    expect((await api('GET', '/api/iop/alerts', undefined, 'viewer')).status).toBe(200);
    const empty = await api('POST', '/api/iop/alerts/acknowledge', { ids: [] });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('ids');
    const wrong = await api('GET', '/api/iop/alerts?state=closed');
    expect(wrong.status).toBe(400);
    expect((await alerts('open')).find((alert) => alert.id === first!.id)?.acknowledged).toBe(false);
  });

  it('acknowledges open alerts once, naming the operator; a later failure opens a new alert', async () => {
    const open = (await alerts('open')).find((alert) => alert.category === 'failure')!;
    const reply = await api('POST', '/api/iop/alerts/acknowledge', { ids: [open.id, 999_999] });
    expect(reply.json).toEqual({ acknowledged: 1 });
    expect((await api('POST', '/api/iop/alerts/acknowledge', { ids: [open.id] })).json).toEqual({ acknowledged: 0 });
    const acknowledged = (await alerts('acknowledged')).find((alert) => alert.id === open.id);
    expect(acknowledged).toMatchObject({ acknowledged: true, acknowledged_by: 'admin', count: 2 });
    expect((await api('POST', '/api/iop/test', { target: 'Worker', classname: 'jobs.Job', body: { fail: true } })).status).toBe(500);
    await settled(async () => {
      const reopened = (await alerts('open')).filter((alert) => alert.category === 'failure');
      expect(reopened).toHaveLength(1);
      expect(reopened[0]!.id).not.toBe(open.id);
      expect(reopened[0]!.count).toBe(1);
    }, 'a new failure alert');
  });

  it('keeps the alerts across a server restart', async () => {
    const before = await alerts();
    await server.kill();
    await startServer();
    const after = await alerts();
    expect(after.map((alert) => [alert.id, alert.count, alert.acknowledged])).toEqual(before.map((alert) => [alert.id, alert.count, alert.acknowledged]));
  });
});
