import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { escapeLabel, RequestDurations } from './metrics.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('GET /metrics', () => {
  it('answers Prometheus text with messages per item, queues, production status and request durations', async () => {
    await h.app.inject({ method: 'POST', url: '/api/iop/start', headers: h.auth('operator'), payload: { production: 'Demo.Production' } });
    h.engine.ns('USER').queues = [{ target: 'Python.FileOperation', queued: 3, delivered: 1, oldest: 0 }];
    h.engine.counts = [{ item: 'Python.FileOperation', processed: 42, failed: 2 }];
    const response = await h.app.inject({ url: '/metrics', headers: h.auth('viewer') });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const lines = response.body.split('\n');
    expect(lines).toContain('conveyor_messages_processed_total{namespace="USER",item="Python.FileOperation"} 42');
    expect(lines).toContain('conveyor_messages_failed_total{namespace="USER",item="Python.FileOperation"} 2');
    expect(lines).toContain('conveyor_queue_depth{namespace="USER",target="Python.FileOperation"} 3');
    expect(lines).toContain('conveyor_queue_in_flight{namespace="USER",target="Python.FileOperation"} 1');
    expect(lines).toContain('conveyor_production_running{namespace="USER",production="Demo.Production"} 1');
    expect(lines).toContain('# TYPE conveyor_http_request_duration_seconds histogram');
    expect(lines).toContain('conveyor_http_request_duration_seconds_count{method="POST",route="/api/iop/start",status="200"} 1');
    expect(lines.filter((line) => line !== '' && !line.startsWith('#')).every((line) => /^[a-z_]+(\{[^}]*\})? [0-9.e+-]+$/.test(line))).toBe(true);
  });

  it("adds the monitor's per-item figures, the production's health and the open alerts", async () => {
    h.engine.monitorItems = [
      {
        name: 'Python.FileOperation',
        classname: 'Python.FileOperation',
        kind: 'operation',
        enabled: true,
        status: 'running',
        error: null,
        jobs: 1,
        messagesIn: 45,
        messagesOut: 4,
        processed: 42,
        failed: 2,
        lastActivity: 1_700_000_000_000,
        meanMs: 250,
        p95Ms: 800,
        rate1m: 0.5,
        rate5m: 0.25,
        queued: 3,
        inProgress: 1,
        queueCountAlert: 0,
        inactivityTimeout: 0,
        trouble: null,
      },
    ];
    const lines = (await h.app.inject({ url: '/metrics', headers: h.auth('viewer') })).body.split('\n');
    const item = 'namespace="USER",item="Python.FileOperation"';
    expect(lines).toEqual(
      expect.arrayContaining([
        `conveyor_item_status{${item},status="running"} 1`,
        `conveyor_item_messages_in_total{${item}} 45`,
        `conveyor_item_messages_out_total{${item}} 4`,
        `conveyor_item_messages_in_error_total{${item}} 2`,
        `conveyor_item_queued{${item}} 3`,
        `conveyor_item_in_progress{${item}} 1`,
        '# TYPE conveyor_item_processing_seconds summary',
        `conveyor_item_processing_seconds{${item},quantile="0.95"} 0.8`,
        `conveyor_item_processing_seconds_sum{${item}} 11`,
        `conveyor_item_processing_seconds_count{${item}} 44`,
        `conveyor_item_rate_per_second{${item},window="1m"} 0.5`,
        `conveyor_item_rate_per_second{${item},window="5m"} 0.25`,
        `conveyor_item_last_activity_timestamp_seconds{${item}} 1700000000`,
        'conveyor_production_health{namespace="USER",production="Demo.Production",health="ok"} 1',
        'conveyor_production_health{namespace="USER",production="Demo.Production",health="down"} 0',
        'conveyor_alerts_open{namespace="USER"} 0',
      ]),
    );
  });

  it('labels the per-item figures with this node when the store is shared by several nodes; queue depths stay whole', async () => {
    const nodes = h.engine.nodes.bind(h.engine);
    h.engine.nodes = async () => [
      { nodeId: 'node-a', host: 'a', pid: 1, self: true, silentMs: 0 },
      { nodeId: 'node-b', host: 'b', pid: 2, self: false, silentMs: 10 },
    ];
    try {
      const lines = (await h.app.inject({ url: '/metrics', headers: h.auth('viewer') })).body.split('\n');
      const item = 'namespace="USER",item="Python.FileOperation"';
      expect(lines).toEqual(
        expect.arrayContaining([
          `conveyor_item_messages_in_total{${item},node="node-a"} 45`,
          `conveyor_item_processing_seconds{${item},node="node-a",quantile="0.95"} 0.8`,
          `conveyor_item_status{${item},node="node-a",status="running"} 1`,
          `conveyor_messages_processed_total{${item},node="node-a"} 42`,
          `conveyor_item_queued{${item}} 3`,
        ]),
      );
    } finally {
      h.engine.nodes = nodes;
    }
  });

  it('needs credentials', async () => {
    expect((await h.app.inject({ url: '/metrics' })).statusCode).toBe(401);
  });
});

describe('RequestDurations', () => {
  it('fills cumulative buckets, sum and count', () => {
    const durations = new RequestDurations();
    durations.observe('GET', '/x', 200, 0.02);
    durations.observe('GET', '/x', 200, 3);
    const lines: string[] = [];
    durations.render(lines);
    expect(lines).toContain('conveyor_http_request_duration_seconds_bucket{method="GET",route="/x",status="200",le="0.01"} 0');
    expect(lines).toContain('conveyor_http_request_duration_seconds_bucket{method="GET",route="/x",status="200",le="0.025"} 1');
    expect(lines).toContain('conveyor_http_request_duration_seconds_bucket{method="GET",route="/x",status="200",le="5"} 2');
    expect(lines).toContain('conveyor_http_request_duration_seconds_bucket{method="GET",route="/x",status="200",le="+Inf"} 2');
    expect(lines).toContain('conveyor_http_request_duration_seconds_sum{method="GET",route="/x",status="200"} 3.02');
  });

  it('escapes label values', () => {
    expect(escapeLabel('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
  });
});
