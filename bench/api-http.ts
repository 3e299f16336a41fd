/**
 * Throughput of the API layer alone: the real Fastify app (Basic auth, namespace check, JSON replies)
 * over loopback TCP, in front of the in-memory engine of the API tests, so the numbers are the HTTP
 * layer's cost and not the engine's. Prints requests/s and latency; asserts nothing.
 * Run: node --import tsx bench/api-http.ts [seconds per route]
 */
import { createRequire } from 'node:module';
import { listenApi } from '../src/api/listen.ts';
import { createHarness } from '../test/api/support/harness.ts';

interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
// autocannon ships no type declarations: type the little used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<CannonResult>;

const seconds = Number(process.argv[2] ?? 3);
const harness = await createHarness();
harness.engine.addLog('USER', 200);
const listener = await listenApi(harness.app, { port: 0 });
const headers = harness.auth('viewer');
const routes = ['/api/iop/status', '/api/iop/log?top=10', '/api/iop/log?since_id=190', '/api/iop/export?production=Demo.Production', '/metrics'];
await harness.app.inject({ method: 'PUT', url: '/api/iop/default', headers: harness.auth('admin'), payload: { production: 'Demo.Production' } });
try {
  await autocannon({ url: `${listener.url}${routes[0]}`, headers, connections: 10, duration: 1 }); // warm-up (JIT)
  for (const route of routes) {
    const result = await autocannon({ url: `${listener.url}${route}`, headers, connections: 10, duration: seconds });
    const errors = result.non2xx + result.errors;
    console.log(
      `${route.padEnd(46)} ${String(Math.round(result.requests.average)).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms${errors ? `  ${errors} errors` : ''}`,
    );
  }
} finally {
  await listener.close();
  await harness.close();
}
