/**
 * `GET /metrics` in the Prometheus text format (version 0.0.4): messages processed and failed per item,
 * the monitor's per-item figures (in, out, in error, queued, in progress, processing time, rates, last
 * activity, status), queue depths, production status and health, open alerts per namespace, and the
 * duration of the API's own requests. In a cluster the per-item figures are this node's and carry a
 * `node` label (queue depths come from the shared store and do not). Request durations are keyed by route template, not raw URL, so the number of
 * series stays bounded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { metrics } from '../core/contract/monitoring-routes.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs)
    .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
    .join(',')}}`;
}

export class RequestDurations {
  readonly #series = new Map<string, { labels: Record<string, string>; histogram: Histogram }>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { labels: { method, route, status: String(status) }, histogram: { counts: buckets.map(() => 0), sum: 0, count: 0 } };
      this.#series.set(key, entry);
    }
    const { histogram } = entry;
    buckets.forEach((bound, index) => {
      if (seconds <= bound) histogram.counts[index] = (histogram.counts[index] ?? 0) + 1;
    });
    histogram.sum += seconds;
    histogram.count += 1;
  }

  render(lines: string[]): void {
    const name = 'conveyor_http_request_duration_seconds';
    lines.push(`# HELP ${name} Duration of the API's HTTP requests.`, `# TYPE ${name} histogram`);
    for (const { labels: base, histogram } of this.#series.values()) {
      buckets.forEach((bound, index) => lines.push(`${name}_bucket${labels({ ...base, le: String(bound) })} ${histogram.counts[index] ?? 0}`));
      lines.push(`${name}_bucket${labels({ ...base, le: '+Inf' })} ${histogram.count}`);
      lines.push(`${name}_sum${labels(base)} ${histogram.sum}`, `${name}_count${labels(base)} ${histogram.count}`);
    }
  }
}

/** One metric family: its samples, with HELP and TYPE. */
class Family {
  readonly samples: string[] = [];

  constructor(
    readonly name: string,
    readonly type: 'counter' | 'gauge' | 'summary',
    readonly help: string,
  ) {}

  add(pairs: Record<string, string>, value: number, suffix = ''): void {
    this.samples.push(`${this.name}${suffix}${labels(pairs)} ${value}`);
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`, ...this.samples);
  }
}

const healthStates = ['ok', 'degraded', 'down'] as const;

async function renderEngine(engine: EngineOperations, lines: string[]): Promise<void> {
  const processed = new Family('conveyor_messages_processed_total', 'counter', 'Requests an item handled successfully since the server started.');
  const failed = new Family('conveyor_messages_failed_total', 'counter', 'Requests whose handling failed for good since the server started.');
  const queued = new Family('conveyor_queue_depth', 'gauge', 'Messages queued for a target, not yet taken by a job.');
  const inFlight = new Family('conveyor_queue_in_flight', 'gauge', 'Messages a job of the target is working on.');
  const running = new Family('conveyor_production_running', 'gauge', '1 when the current production of the namespace runs, else 0.');
  const health = new Family('conveyor_production_health', 'gauge', "1 for the production's current health (ok, degraded, down), 0 for the others.");
  const openAlerts = new Family('conveyor_alerts_open', 'gauge', 'Alerts of the namespace not yet acknowledged.');
  const itemStatus = new Family('conveyor_item_status', 'gauge', "1 for the item's current status (running, stopped, error, disabled, inactive).");
  const itemIn = new Family('conveyor_item_messages_in_total', 'counter', 'Requests sent to the item (a service: inputs it handled) on this node.');
  const itemOut = new Family('conveyor_item_messages_out_total', 'counter', 'Requests the item sent on this node.');
  const itemError = new Family('conveyor_item_messages_in_error_total', 'counter', 'Requests (inputs) the item failed for good on this node.');
  const itemQueued = new Family('conveyor_item_queued', 'gauge', "Messages waiting in the item's queue.");
  const itemInProgress = new Family('conveyor_item_in_progress', 'gauge', 'Messages a job of the item has taken and not finished.');
  const itemTime = new Family(
    'conveyor_item_processing_seconds',
    'summary',
    'Processing time of the requests the item handled on this node (p95 from a bounded sample).',
  );
  const itemRate = new Family('conveyor_item_rate_per_second', 'gauge', 'Requests the item handled per second on this node over the window (1m, 5m).');
  const itemLast = new Family(
    'conveyor_item_last_activity_timestamp_seconds',
    'gauge',
    "Unix time of the item's last message in, out or handled on this node.",
  );
  // In a cluster each node reports what it handled: its series carry a node label.
  const nodes = await engine.nodes();
  const node: Record<string, string> = nodes.length > 1 ? { node: nodes.find((candidate) => candidate.self)?.nodeId ?? '' } : {};
  for (const namespace of await engine.namespaces()) {
    const handle = await engine.namespace(namespace);
    const [depths, status, counts, report] = await Promise.all([handle.queues(), handle.status(), handle.messageCounts(), handle.monitor()]);
    for (const depth of depths) {
      queued.add({ namespace, target: depth.target }, depth.queued);
      inFlight.add({ namespace, target: depth.target }, depth.delivered);
    }
    if (status.production) {
      running.add({ namespace, production: status.production }, status.status === 'running' ? 1 : 0);
      for (const state of healthStates) health.add({ namespace, production: status.production, health: state }, report.health === state ? 1 : 0);
    }
    openAlerts.add({ namespace }, report.openAlerts);
    for (const count of counts) {
      processed.add({ namespace, item: count.item, ...node }, count.processed);
      failed.add({ namespace, item: count.item, ...node }, count.failed);
    }
    for (const item of report.items) {
      const base = { namespace, item: item.name, ...node };
      itemStatus.add({ ...base, status: item.status }, 1);
      itemIn.add(base, item.messagesIn);
      itemOut.add(base, item.messagesOut);
      itemError.add(base, item.failed);
      itemQueued.add({ namespace, item: item.name }, item.queued);
      itemInProgress.add({ namespace, item: item.name }, item.inProgress);
      const handled = item.processed + item.failed;
      if (item.p95Ms !== null) itemTime.add({ ...base, quantile: '0.95' }, item.p95Ms / 1000);
      itemTime.add(base, ((item.meanMs ?? 0) * handled) / 1000, '_sum');
      itemTime.add(base, handled, '_count');
      itemRate.add({ ...base, window: '1m' }, item.rate1m);
      itemRate.add({ ...base, window: '5m' }, item.rate5m);
      if (item.lastActivity !== null) itemLast.add(base, item.lastActivity / 1000);
    }
  }
  for (const family of [
    processed,
    failed,
    queued,
    inFlight,
    running,
    health,
    openAlerts,
    itemStatus,
    itemIn,
    itemOut,
    itemError,
    itemQueued,
    itemInProgress,
    itemTime,
    itemRate,
    itemLast,
  ]) {
    family.render(lines);
  }
}

/** Registers `GET /metrics` on the scope and starts timing every request of the app. */
export function registerMetrics(app: FastifyInstance, scope: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog): RequestDurations {
  const durations = new RequestDurations();
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    durations.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  serve(contractScope(scope), catalog, metrics, async (_request, reply) => {
    const lines: string[] = [];
    await renderEngine(engine, lines);
    durations.render(lines);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(`${lines.join('\n')}\n`);
  });
  return durations;
}
