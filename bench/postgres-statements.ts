/**
 * What one round trip costs on PostgreSQL, counted rather than timed (the machine is shared, so
 * counts and CPU per round trip are the figures that hold still): the S→P→O chain of the cluster
 * scenario on one node, closed loop for a few seconds, with every statement the node's PostgreSQL
 * connections send counted by kind (prepared name, or the statement's first words) with its wait,
 * the batch commits that waited for the disk told apart from those that did not, and the Node CPU
 * per round trip.
 * Asserts nothing.
 *
 * Run: PG_URL=postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test node --import tsx bench/postgres-statements.ts [builtin|python] [ms]
 * Add --cpu-prof after `node` for a CPU profile of the same run. Works in a throwaway schema.
 */
import pg from 'pg';
import { closedLoop } from './support/load.ts';
import { requiredPgUrl } from './support/postgres-url.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction, type ChainKind } from './support/production.ts';

const url = requiredPgUrl();
const kind: ChainKind = process.argv[2] === 'python' ? 'python' : 'builtin';
const windowMs = Number(process.argv[3] ?? 3000);
const schema = `bench_statements_${process.pid}`;

const counts = new Map<string, number>();
/** Milliseconds from sending each statement to its answer, summed per kind (queueing on the connection included). */
const waits = new Map<string, number>();
let roundTrips = 0;
let durableCommits = 0;
let counting = false;
const originalQuery = pg.Client.prototype.query;
// Edge instrumentation of the driver: every statement of every connection (pool, listener) passes here.
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0];
    const label =
      typeof first === 'string'
        ? first.trim().split(/\s+/).slice(0, 3).join(' ')
        : typeof first === 'object' && first !== null && 'name' in first && typeof first.name === 'string'
          ? first.name
          : typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string'
            ? first.text.trim().split(/\s+/).slice(0, 3).join(' ')
            : 'other';
    counts.set(label, (counts.get(label) ?? 0) + 1);
    const started = performance.now();
    const result = (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      void result
        .then((answer: { rows?: Array<{ relaxed?: unknown }> }) => {
          // The batch statements say whether their commit waited for the disk (null: it did).
          if (label.startsWith('conveyor-write-') && answer.rows?.[0]?.relaxed === null) durableCommits++;
        })
        .finally(() => waits.set(label, (waits.get(label) ?? 0) + performance.now() - started))
        .catch(() => undefined);
    }
    return result;
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const walBefore = await walSyncs();
const production = await openBenchProduction({ items: chainItems(kind, 2), storeUrl: `${url}${url.includes('?') ? '&' : '?'}schema=${schema}` });
try {
  const call = chainCall(kind, production.running);
  const payload = 'x'.repeat(64);
  const warmup = await closedLoop((i) => call(benchRequest(i, payload)), 4, 1000);
  counting = true;
  const figures = await closedLoop((i) => call(benchRequest(i, payload)), 4, windowMs);
  counting = false;
  roundTrips = warmup.calls + figures.calls;
  console.log(
    `${kind} S→P→O, pool 2, 4 callers, ${windowMs} ms: ${figures.calls} round trips (${Math.round(figures.perSecond)}/s), ` +
      `node CPU ${Math.round(figures.nodeCpuUsPerCall)} µs per round trip, p50 ${figures.latency.p50Ms.toFixed(2)} ms, p99 ${figures.latency.p99Ms.toFixed(2)} ms`,
  );
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  console.log(
    `  statements per round trip: ${(total / figures.calls).toFixed(2)}; batch commits that waited for the disk per round trip: ${(durableCommits / figures.calls).toFixed(2)}`,
  );
  for (const [label, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    console.log(`    ${(n / figures.calls).toFixed(2).padStart(6)}  ${label.padEnd(40)} ${((waits.get(label) ?? 0) / n).toFixed(2)} ms each`);
  }
} finally {
  await production.close();
  // Backends report their WAL syncs when they exit: the store's connections are closed by now.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const syncs = (await walSyncs()) - walBefore;
  // The WAL writer's background flushes of commits that did not wait count here too.
  if (roundTrips > 0)
    console.log(`  WAL syncs (the whole server, warm-up included, background flushes too) per round trip: ${(syncs / roundTrips).toFixed(2)}`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}

/**
 * WAL syncs of the whole server so far (pg_stat_wal; other databases' included, so run it on a quiet
 * server): how many commits waited for the disk. A backend reports its syncs when it exits or idles.
 */
async function walSyncs(): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT wal_sync AS n FROM pg_stat_wal');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
