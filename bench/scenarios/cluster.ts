/**
 * Scale-out (issue 9): PostgreSQL beside SQLite on one node (the same chains in one process), then
 * one, two and three real server processes on one PostgreSQL database draining the same preloaded
 * queue through the engine (claims with leases, replies across nodes). All nodes share this
 * machine's two cores, so the work per CPU second (servers + PostgreSQL backends) matters as much
 * as the rate. Needs PG_URL; says so and records nothing without it.
 * Run: PG_URL=postgres://… node --import tsx bench/scenarios/cluster.ts [--quick]
 */
import pg from 'pg';
import { newProduction } from '../../src/core/production.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { describe, measureChain, type LoadFigures } from '../support/chain.ts';
import { benchRequest, chainItems, driverName, namespace } from '../support/production.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { postgresCpuMs, processCpuMs } from '../support/resources.ts';
import { startServer } from '../support/server.ts';

const pgUrl = process.env['PG_URL'] ?? '';
const drainMessages = quick ? 600 : 3000;
const nodeCounts = [1, 2, 3];

function withSchema(schema: string): string {
  return `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

interface DrainFigures {
  nodes: number;
  messages: number;
  seconds: number;
  perSecond: number;
  cpuMs: { servers: number; postgres: number };
  perCpuSecond: number;
}

/** Preloads `messages` requests, starts the production on node 1, and times the cluster's drain. */
async function drain(nodes: number): Promise<DrainFigures> {
  const schema = `bench_cluster_${process.pid}_${nodes}_${Date.now()}`;
  const url = withSchema(schema);
  const store = await openStore({ url });
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    const production = newProduction('Bench.Cluster', chainItems('builtin', 2));
    await store.productions.put(namespace, production);
    const payload = 'x'.repeat(64);
    for (let offset = 0; offset < drainMessages; offset += 500) {
      const batch: NewMessage[] = Array.from({ length: Math.min(500, drainMessages - offset) }, (_, i) => ({
        namespace,
        sessionId: null,
        parentId: null,
        correspondingId: null,
        kind: 'request',
        source: driverName,
        target: 'Process',
        responseRequired: false,
        status: 'queued',
        priority: 0,
        description: '',
        body: benchRequest(offset + i, payload),
      }));
      await store.messages.insert(batch);
    }
    for (let i = 0; i < nodes; i++) servers.push(await startServer({ args: ['--store', url] }));
    const cpuBefore = { servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0), postgres: postgresCpuMs() };
    const started = performance.now();
    const reply = await fetch(`${servers[0]!.api}/start`, {
      method: 'POST',
      headers: { authorization: servers[0]!.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ production: production.name }),
    });
    if (!reply.ok) throw new Error(`start failed: ${reply.status} ${await reply.text()}`);
    for (;;) {
      const depths = await store.messages.queueDepths(namespace);
      if (depths.every((depth) => depth.queued === 0 && depth.delivered === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = {
      servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0) - cpuBefore.servers,
      postgres: postgresCpuMs() - cpuBefore.postgres,
    };
    return {
      nodes,
      messages: drainMessages,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(drainMessages / seconds),
      cpuMs: { servers: Math.round(cpuMs.servers), postgres: Math.round(cpuMs.postgres) },
      perCpuSecond: Math.round(drainMessages / ((cpuMs.servers + cpuMs.postgres) / 1000)),
    };
  } finally {
    for (const server of servers) await server.stop();
    await store.close();
    await dropSchema(schema);
  }
}

if (pgUrl === '') {
  console.log('cluster: PG_URL is not set (e.g. postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test): nothing measured');
} else {
  await runScenario('cluster', { ...plan, drainMessages, nodeCounts, chain: 'built-in Router → Echo, pool 2 per node', store: 'PostgreSQL' }, async () => {
    const oneNode: Record<string, LoadFigures> = {};
    for (const kind of ['builtin', 'python'] as const) {
      oneNode[`${kind}-sqlite`] = await measureChain({ kind, poolSize: 2, payloadBytes: 64 }, plan);
      describe(`one node, ${kind} S→P→O pool 2, SQLite`, oneNode[`${kind}-sqlite`]!);
      const schema = `bench_single_${process.pid}_${kind}_${Date.now()}`;
      try {
        oneNode[`${kind}-postgres`] = await measureChain({ kind, poolSize: 2, payloadBytes: 64, storeUrl: withSchema(schema) }, plan);
        describe(`one node, ${kind} S→P→O pool 2, PostgreSQL`, oneNode[`${kind}-postgres`]!);
      } finally {
        await dropSchema(schema);
      }
    }
    const drains: DrainFigures[] = [];
    for (const nodes of nodeCounts) {
      const figures = await drain(nodes);
      drains.push(figures);
      console.log(
        `   ${nodes} node${nodes === 1 ? '' : 's'}: drained ${figures.messages} requests (Router → Echo) in ${figures.seconds} s = ${figures.perSecond}/s; ` +
          `CPU servers ${figures.cpuMs.servers} ms + PostgreSQL ${figures.cpuMs.postgres} ms = ${figures.perCpuSecond} requests per CPU second`,
      );
    }
    return { oneNode, drains };
  });
}
