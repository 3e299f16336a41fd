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
 *   bar: pg_sqlite_python=<ratio> pg_sqlite_builtin=<ratio> per_cpu_s_3_1=<3-node ÷ 1-node requests per CPU second, steady drains>
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
  /** PostgreSQL: the nodes' backends and the server's helpers; `watcher`: the scenario's own backend watching the queue, left out of `postgres`. */
  cpuMs: { servers: number; postgres: number; watcher: number };
  perCpuSecond: number;
}

/** One node count's drains: the first, on fresh server processes, and the steady one, once each node has drained about `drainMessages`. */
interface NodeDrains {
  first: DrainFigures;
  steady: DrainFigures;
  /** Transactions committed in the scenario's own database per request, over all of its drains (the start's last ones may count), or null without a database of its own. */
  transactionsPerRequest: number | null;
}

/**
 * Starts `nodes` servers on one schema and the production on node 1, then times two drains of
 * `drainMessages` preloaded requests: the first on the fresh processes, and — after the other nodes'
 * share of a warm-up, so that each node has drained about `drainMessages` requests — the steady one.
 * Each server process compiles its hot path (V8's optimizing compiler, on threads of its own) while
 * it first runs it: about 0.3–0.5 s of CPU per process, which a first drain of 3,000 requests (1,000
 * per node at three nodes) does not amortise — a cost of starting a process, not of sharing the work.
 * The steady drain is the one the bar reads.
 */
async function drain(nodes: number): Promise<NodeDrains> {
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
    const requests = (count: number): NewMessage[] =>
      Array.from({ length: count }, (_, i) => ({
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
    /**
     * Queues `count` requests, wakes the nodes and waits until they have drained them; `clock`, if
     * given, is called once the requests are stored (storing them is the scenario's work, not the
     * nodes'). The scenario watches the queue on a connection of its own, closed at the end (so that
     * its backend reports its commits), and returns that backend's CPU (a look every 50 ms) and the
     * scenario's own statements (the insert, the notification, each look), which are not the nodes'.
     */
    const queueAndDrain = async (count: number, clock?: () => void): Promise<{ ownStatements: number; watcherMs: number }> => {
      const watcher = new pg.Client({ connectionString: pgUrl });
      await watcher.connect();
      try {
        await watcher.query(`SET search_path = "${schema}"`);
        const watcherPid = (await watcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // All of them queued in one commit, then every node woken as a node queueing them would (the
        // coordinator's notification: channel "conveyor", the event in an envelope naming its sender).
        await store.messages.insert(requests(count));
        const watcherBefore = processCpuMs(watcherPid);
        clock?.();
        await store.cluster!.notify('conveyor', JSON.stringify({ from: 'bench', event: { type: 'wake', namespace, target: 'Process' } }));
        let ownStatements = 2;
        for (;;) {
          // Whether any request is still queued or leased, through the queue's two small partial
          // indexes: a count of the unfinished rows walked the dead index entries of every request
          // drained so far, up to 2 s of PostgreSQL CPU per drain at 20 ms intervals.
          const { rows } = await watcher.query<{ busy: boolean }>({
            name: 'unfinished',
            text: `SELECT EXISTS (SELECT 1 FROM messages WHERE status = 'queued' AND kind = 'request')
              OR EXISTS (SELECT 1 FROM messages WHERE status = 'delivered') AS busy`,
          });
          ownStatements++;
          if (!rows[0]!.busy) return { ownStatements, watcherMs: processCpuMs(watcherPid) - watcherBefore };
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await watcher.end();
      }
    };
    let ownStatements = 0;
    let drained = 0;
    /** Times one drain (the scenario's own statements and requests are tallied for the count of transactions below). */
    const timed = async (): Promise<DrainFigures> => {
      // Every timed drain starts from a vacuumed table: the steady drain of three nodes follows 9,000
      // requests, one node's 3,000, and the dead rows and index entries they left would weigh on the
      // claims and the watcher of the larger cluster only. (Its few transactions count among the
      // node count's transactions per request: about 0.01 at 3,000 requests a drain.)
      const vacuum = new pg.Client({ connectionString: pgUrl });
      await vacuum.connect();
      try {
        await vacuum.query(`VACUUM "${schema}".messages, "${schema}".message_bodies`);
      } finally {
        await vacuum.end();
      }
      let cpuBefore = { servers: 0, postgres: 0 };
      let started = 0;
      const own = await queueAndDrain(drainMessages, () => {
        cpuBefore = { servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0), postgres: postgresCpuMs(ownDatabase ?? undefined) };
        started = performance.now();
      });
      ownStatements += own.ownStatements;
      drained += drainMessages;
      const seconds = (performance.now() - started) / 1000;
      const cpuMs = {
        servers: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0) - cpuBefore.servers,
        postgres: postgresCpuMs(ownDatabase ?? undefined) - cpuBefore.postgres - own.watcherMs,
      };
      return {
        nodes,
        messages: drainMessages,
        seconds: Math.round(seconds * 100) / 100,
        perSecond: Math.round(drainMessages / seconds),
        cpuMs: { servers: Math.round(cpuMs.servers), postgres: Math.round(cpuMs.postgres), watcher: own.watcherMs },
        perCpuSecond: Math.round(drainMessages / ((cpuMs.servers + cpuMs.postgres) / 1000)),
      };
    };
    // The servers' backends report their commits of the start within a second or so.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const commitsBefore = await databaseCommits();
    const first = await timed();
    if (nodes > 1) {
      const own = await queueAndDrain(drainMessages * (nodes - 1));
      ownStatements += own.ownStatements;
      drained += drainMessages * (nodes - 1);
    }
    const steady = await timed();
    // Backends report their commits when they exit (or up to ten seconds late while their connection
    // stays open): the servers stop first, and the count covers all of this node count's drains.
    for (const server of servers) await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const commits = commitsBefore === null ? null : (await databaseCommits())! - commitsBefore - ownStatements;
    const transactionsPerRequest = commits === null ? null : Math.round((commits / drained) * 100) / 100;
    return { first, steady, transactionsPerRequest };
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
        const drains: NodeDrains[] = [];
        for (const nodes of nodeCounts) {
          const figures = await drain(nodes);
          drains.push(figures);
          for (const [label, run] of [
            ['first', figures.first],
            ['steady', figures.steady],
          ] as const) {
            console.log(
              `   ${nodes} node${nodes === 1 ? '' : 's'}, ${label} drain: ${run.messages} requests (Router → Echo) in ${run.seconds} s = ${run.perSecond}/s; ` +
                `CPU servers ${run.cpuMs.servers} ms + PostgreSQL ${run.cpuMs.postgres} ms = ${run.perCpuSecond} requests per CPU second (watching the queue: ${run.cpuMs.watcher} ms, not counted)`,
            );
          }
          if (figures.transactionsPerRequest !== null)
            console.log(`      ${figures.transactionsPerRequest} transactions per request over the ${nodes}-node drains`);
        }
        const perCpu = (nodes: number, run: 'first' | 'steady') => drains.find((d) => d.steady.nodes === nodes)![run].perCpuSecond;
        console.log(
          `      3 ÷ 1 nodes, requests per CPU second: first drains ${fmt(perCpu(3, 'first') / perCpu(1, 'first'))}, steady drains (the bar) ${fmt(perCpu(3, 'steady') / perCpu(1, 'steady'))}`,
        );
        const bar = {
          pgSqlitePython: oneNodeFigures.python!.ratio.median,
          pgSqliteBuiltin: oneNodeFigures.builtin!.ratio.median,
          perCpuS31: perCpu(3, 'steady') / perCpu(1, 'steady'),
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
