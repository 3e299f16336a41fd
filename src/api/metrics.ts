/**
 * `GET /metrics` in the Prometheus text format (version 0.0.4): messages processed and failed per item
 * (when the engine counts them), queue depths and production status per namespace, and the duration of
 * the API's own requests. Request durations are keyed by route template, not raw URL, so the number of
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

async function renderEngine(engine: EngineOperations, lines: string[]): Promise<void> {
  const processed: string[] = [];
  const failed: string[] = [];
  const queued: string[] = [];
  const inFlight: string[] = [];
  const running: string[] = [];
  for (const namespace of await engine.namespaces()) {
    const handle = await engine.namespace(namespace);
    const [depths, status, counts] = await Promise.all([handle.queues(), handle.status(), handle.messageCounts()]);
    for (const depth of depths) {
      queued.push(`conveyor_queue_depth${labels({ namespace, target: depth.target })} ${depth.queued}`);
      inFlight.push(`conveyor_queue_in_flight${labels({ namespace, target: depth.target })} ${depth.delivered}`);
    }
    if (status.production)
      running.push(`conveyor_production_running${labels({ namespace, production: status.production })} ${status.status === 'running' ? 1 : 0}`);
    for (const count of counts) {
      processed.push(`conveyor_messages_processed_total${labels({ namespace, item: count.item })} ${count.processed}`);
      failed.push(`conveyor_messages_failed_total${labels({ namespace, item: count.item })} ${count.failed}`);
    }
  }
  const family = (name: string, type: string, help: string, samples: string[]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  };
  family('conveyor_messages_processed_total', 'counter', 'Requests an item handled successfully since the server started.', processed);
  family('conveyor_messages_failed_total', 'counter', 'Requests whose handling failed for good since the server started.', failed);
  family('conveyor_queue_depth', 'gauge', 'Messages queued for a target, not yet taken by a job.', queued);
  family('conveyor_queue_in_flight', 'gauge', 'Messages a job of the target is working on.', inFlight);
  family('conveyor_production_running', 'gauge', '1 when the current production of the namespace runs, else 0.', running);
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
