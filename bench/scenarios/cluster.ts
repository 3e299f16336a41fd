/**
 * Scale-out (issues 9 and 16): PostgreSQL beside SQLite on one node (the same chains in one process,
 * their windows taken in turn so the shared machine's drifting load weighs on both alike), then one,
 * two and three real server processes on one PostgreSQL database draining the same preloaded queue
 * through the engine (claims with leases, replies across nodes). All nodes share this machine's two
 * cores, so the work per CPU second (servers + PostgreSQL backends) matters as much as the rate.
 *
 * It works in a database of its own (created from PG_URL's, dropped at the end; PG_URL's own when
 * it may not create one), so the PostgreSQL CPU it counts is its backends', not other users' of the
 * same server. Ends with the line
 *   bar: pg_sqlite_python=<ratio> pg_sqlite_builtin=<ratio> per_cpu_s_3_1=<3-node ÷ 1-node requests per CPU second>
 * Needs PG_URL; says so and records nothing without it.
 * Run: PG_URL=postgres://… node --import tsx bench/scenarios/cluster.ts [--quick]
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { newProduction } from '../../src/core/production.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { concurrencyFor, describe, reduce, type LoadFigures } from '../support/chain.ts';
import { closedLoop, type WindowFigures } from '../support/load.ts';
import { withDatabase } from '../support/postgres-url.ts';
import { benchRequest, chainCall, chainItems, driverName, namespace, openBenchProduction, type ChainKind } from '../support/production.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { postgresCpuMs, processCpuMs } from '../support/resources.ts';
import { startServer } from '../support/server.ts';
import { fmt, fmtSpread, spread, type Spread } from '../support/stats.ts';

const givenUrl = process.env['PG_URL'] ?? '';
const drainMessages = quick ? 600 : 3000;
const nodeCounts = [1, 2, 3];
const benchDatabase = `conveyor_bench_${process.pid}`;
/** The database the scenario works in: its own once created (see main), PG_URL's until then. */
let pgUrl = givenUrl;
let ownDatabase: string | null = null;

function withSchema(schema: string): string {
  return `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
}

/**
 * Creates the scenario's own database; false (and a note) when the user may not. Databases left by
 * earlier runs of this machine that died before their clean-up (their process is gone) are dropped.
 */
async function createOwnDatabase(): Promise<boolean> {
  const client = new pg.Client({ connectionString: givenUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'conveyor\\_bench\\_%'");
    for (const { datname } of rows) {
      const pid = Number(/^conveyor_bench_(\d+)$/.exec(datname)?.[1]);
      if (Number.isInteger(pid) && !existsSync(`/proc/${pid}`)) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await client.query(`CREATE DATABASE ${benchDatabase}`);
    return true;
  } catch (error) {
    console.log(`   (could not create a database of its own, ${(error as Error).message}: PostgreSQL CPU counts every backend of PG_URL's database)`);
    return false;
  } finally {
    await client.end();
  }
}

async function dropOwnDatabase(): Promise<void> {
  const client = new pg.Client({ connectionString: givenUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${benchDatabase} WITH (FORCE)`);
  } finally {
    await client.end();
  }
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

/** Transactions committed in the scenario's own database so far (pg_stat_database), or null when it has none. */
async function databaseCommits(): Promise<number | null> {
  if (ownDatabase === null) return null;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]!.commits);
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
  /** Transactions committed in the scenario's own database per request drained (about: the start's last ones may count), or null without one. */
  transactionsPerRequest: number | null;
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
    for (let i = 0; i < nodes; i++) servers.push(await startServer({ args: ['--store', url] }));
    // Every node runs the production before the clock starts: a start's cost is not the drain's.
    const call = (server: (typeof servers)[number], method: string, path: string, body?: unknown) =>
      fetch(`${server.api}${path}`, {
        method,
        headers: { authorization: server.authorization, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const reply = await call(servers[0]!, 'POST', '/start', { production: production.name });
    if (!reply.ok) throw new Error(`start failed: ${reply.status} ${await reply.text()}`);
    for (const server of servers) {
      while (((await (await call(server, 'GET', '/status')).json()) as { status?: string }).status !== 'running') {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const payload = 'x'.repeat(64);
    const requests: NewMessage[] = Array.from({ length: drainMessages }, (_, i) => ({
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
      body: benchRequest(i, payload),
    }));
    // The servers' backends report their commits of the start within a second or so.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const commitsBefore = await databaseCommits();
    const cpuBefore = { servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0), postgres: postgresCpuMs(ownDatabase ?? undefined) };
    const started = performance.now();
    // All of them queued in one commit, then every node woken as a node queueing them would (the
    // coordinator's notification: channel "conveyor", the event in an envelope naming its sender).
    await store.messages.insert(requests);
    await store.cluster!.notify('conveyor', JSON.stringify({ from: 'bench', event: { type: 'wake', namespace, target: 'Process' } }));
    // The scenario's own statements (the insert, the notification, each look at the queues) are not the nodes'.
    let ownStatements = 2;
    for (;;) {
      const depths = await store.messages.queueDepths(namespace);
      ownStatements++;
      if (depths.every((depth) => depth.queued === 0 && depth.delivered === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = {
      servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0) - cpuBefore.servers,
      postgres: postgresCpuMs(ownDatabase ?? undefined) - cpuBefore.postgres,
    };
    // Backends report their commits when they exit: the servers stop first.
    for (const server of servers) await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const commits = commitsBefore === null ? null : (await databaseCommits())! - commitsBefore - ownStatements;
    return {
      nodes,
      messages: drainMessages,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(drainMessages / seconds),
      cpuMs: { servers: Math.round(cpuMs.servers), postgres: Math.round(cpuMs.postgres) },
      perCpuSecond: Math.round(drainMessages / ((cpuMs.servers + cpuMs.postgres) / 1000)),
      transactionsPerRequest: commits === null ? null : Math.round((commits / drainMessages) * 100) / 100,
    };
  } finally {
    for (const server of servers) await server.stop();
    await store.close();
    await dropSchema(schema);
  }
}

interface OneNodeFigures {
  sqlite: LoadFigures;
  postgres: LoadFigures;
  /** PostgreSQL round trips/s over SQLite's, per pair of neighbouring windows. */
  ratio: Spread;
}

/**
 * One chain (pool 2) on SQLite and on PostgreSQL, both opened at once in this process and measured
 * in turns (SQLite, PostgreSQL, SQLite…) so the machine's load weighs on both alike.
 */
async function oneNode(kind: ChainKind): Promise<OneNodeFigures> {
  const schema = `bench_single_${process.pid}_${kind}_${Date.now()}`;
  const sqlite = await openBenchProduction({ items: chainItems(kind, 2) });
  try {
    const postgres = await openBenchProduction({ items: chainItems(kind, 2), storeUrl: withSchema(schema) });
    try {
      const concurrency = concurrencyFor(2);
      const payload = 'x'.repeat(64);
      const window = (production: typeof sqlite) => {
        const call = chainCall(kind, production.running);
        return (ms: number) => closedLoop((i) => call(benchRequest(i, payload)), concurrency, ms);
      };
      const [sqliteWindow, postgresWindow] = [window(sqlite), window(postgres)];
      await sqliteWindow(plan.warmupMs);
      await postgresWindow(plan.warmupMs);
      const onSqlite: WindowFigures[] = [];
      const onPostgres: WindowFigures[] = [];
      for (let run = 0; run < plan.runs; run++) {
        onSqlite.push(await sqliteWindow(plan.windowMs));
        onPostgres.push(await postgresWindow(plan.windowMs));
      }
      return {
        sqlite: reduce(onSqlite, concurrency),
        postgres: reduce(onPostgres, concurrency),
        ratio: spread(onPostgres.map((w, i) => w.perSecond / onSqlite[i]!.perSecond)),
      };
    } finally {
      await postgres.close();
    }
  } finally {
    await sqlite.close();
    await dropSchema(schema);
  }
}

if (givenUrl === '') {
  console.log('cluster: PG_URL is not set (e.g. postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test): nothing measured');
} else {
  if (await createOwnDatabase()) {
    ownDatabase = benchDatabase;
    pgUrl = withDatabase(givenUrl, benchDatabase);
  }
  try {
    const result = await runScenario(
      'cluster',
      { ...plan, drainMessages, nodeCounts, chain: 'built-in Router → Echo, pool 2 per node', store: 'PostgreSQL', database: ownDatabase ?? 'PG_URL' },
      async () => {
        const oneNodeFigures: Partial<Record<ChainKind, OneNodeFigures>> = {};
        for (const kind of ['builtin', 'python'] as const) {
          const figures = await oneNode(kind);
          oneNodeFigures[kind] = figures;
          describe(`one node, ${kind} S→P→O pool 2, SQLite (windows in turn with PostgreSQL)`, figures.sqlite);
          describe(`one node, ${kind} S→P→O pool 2, PostgreSQL`, figures.postgres);
          console.log(`      PostgreSQL ÷ SQLite: ${fmtSpread(figures.ratio)}`);
        }
        const drains: DrainFigures[] = [];
        for (const nodes of nodeCounts) {
          const figures = await drain(nodes);
          drains.push(figures);
          console.log(
            `   ${nodes} node${nodes === 1 ? '' : 's'}: drained ${figures.messages} requests (Router → Echo) in ${figures.seconds} s = ${figures.perSecond}/s; ` +
              `CPU servers ${figures.cpuMs.servers} ms + PostgreSQL ${figures.cpuMs.postgres} ms = ${figures.perCpuSecond} requests per CPU second` +
              (figures.transactionsPerRequest === null ? '' : `; ${figures.transactionsPerRequest} transactions per request`),
          );
        }
        const perCpu = (nodes: number) => drains.find((d) => d.nodes === nodes)!.perCpuSecond;
        const bar = {
          pgSqlitePython: oneNodeFigures.python!.ratio.median,
          pgSqliteBuiltin: oneNodeFigures.builtin!.ratio.median,
          perCpuS31: perCpu(3) / perCpu(1),
        };
        return { oneNode: oneNodeFigures, drains, bar };
      },
    );
    const { bar } = result.figures;
    console.log(`bar: pg_sqlite_python=${fmt(bar.pgSqlitePython)} pg_sqlite_builtin=${fmt(bar.pgSqliteBuiltin)} per_cpu_s_3_1=${fmt(bar.perCpuS31)}`);
  } finally {
    if (ownDatabase !== null) await dropOwnDatabase();
  }
}
