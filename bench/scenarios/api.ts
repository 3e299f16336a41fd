/**
 * Scenario 4, the API: `GET /status` and `GET /log?top=100` requests per second on a real server
 * (its own process, SQLite store, the example production running, Basic auth as admin) over
 * loopback, driven by autocannon from this process (so the load generator shares the 2 cores).
 * Also the server's resident memory idle and under this load.
 * Run: node --import tsx bench/scenarios/api.ts [--quick]
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repeat } from '../support/chain.ts';
import { mb, processCpuMs, processRss, RssSampler } from '../support/resources.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { startServer } from '../support/server.ts';
import { fmt, fmtSpread, spread, type Spread } from '../support/stats.ts';
import { openStore } from '../../src/store/open-store.ts';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  duration: number;
}
// autocannon ships no type declarations: type the little used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<CannonResult>;

const connections = 10;
const logEntries = 300;
const settleMs = quick ? 1000 : 3000;

interface RouteFigures {
  perSecond: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  serverCpuUsPerRequest: Spread;
  failures: number;
  peakServerRssMb: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function idleRss(pid: number): Promise<{ medianMb: number; maxMb: number }> {
  const samples: number[] = [];
  for (let i = 0; i < settleMs / 200; i++) {
    samples.push(mb(processRss(pid)));
    await sleep(200);
  }
  return { medianMb: spread(samples).median, maxMb: Math.max(...samples) };
}

await runScenario(
  'api',
  { ...plan, connections, logEntries, server: 'conveyor serve --example, SQLite durability full', client: 'autocannon 8, same machine' },
  async () => {
    const server = await startServer({
      example: true,
      // Enough log entries that /log?top=100 returns a full page.
      prepare: async (home) => {
        const store = await openStore({ sqlitePath: join(home, 'conveyor.db') });
        const entry = { type: 'Info' as const, configName: 'Bench', job: '1', messageId: null, sessionId: null, sourceClass: 'bench', sourceMethod: 'prepare' };
        await store.log.append(
          'USER',
          Array.from({ length: logEntries }, (_, i) => ({ ...entry, text: `bench entry ${i} ${'x'.repeat(80)}` })),
        );
        await store.close();
      },
    });
    try {
      const headers = { authorization: server.authorization };
      const status = await (await fetch(`${server.api}/status`, { headers })).json();
      console.log(`   server ${server.api}, status ${JSON.stringify(status)}`);
      await sleep(settleMs);
      const idleBefore = await idleRss(server.pid);
      console.log(`   server RSS idle ${fmt(idleBefore.medianMb)} MB (max ${fmt(idleBefore.maxMb)} MB)`);
      const routes: Record<string, RouteFigures> = {};
      for (const route of ['/status', '/log?top=100']) {
        const rss = new RssSampler(200, server.pid);
        const windows = await repeat(plan, async (ms) => {
          const cpu = processCpuMs(server.pid);
          const result = await autocannon({ url: `${server.api}${route}`, headers, connections, duration: Math.max(1, Math.round(ms / 1000)) });
          return { result, cpuMs: processCpuMs(server.pid) - cpu };
        });
        rss.stop();
        routes[route] = {
          perSecond: spread(windows.map((w) => w.result.requests.average)),
          p50Ms: spread(windows.map((w) => w.result.latency.p50)),
          p99Ms: spread(windows.map((w) => w.result.latency.p99)),
          serverCpuUsPerRequest: spread(windows.map((w) => (w.cpuMs * 1000) / Math.max(1, w.result.requests.total))),
          failures: windows.reduce((sum, w) => sum + w.result.non2xx + w.result.errors, 0),
          peakServerRssMb: mb(rss.peakTotalBytes),
        };
        const figures = routes[route]!;
        console.log(`   GET ${route}: ${fmtSpread(figures.perSecond, ' req/s')}`);
        console.log(
          `      p50 ${fmt(figures.p50Ms.median)} ms, p99 ${fmt(figures.p99Ms.median)} ms; server CPU ${fmt(figures.serverCpuUsPerRequest.median)} µs/request; peak server RSS ${fmt(figures.peakServerRssMb)} MB; ${figures.failures} failures`,
        );
      }
      const idleAfter = await idleRss(server.pid);
      console.log(`   server RSS idle after the load ${fmt(idleAfter.medianMb)} MB`);
      return { connections, idleRssMb: idleBefore, routes, idleAfterLoadRssMb: idleAfter };
    } finally {
      await server.stop();
    }
  },
);
