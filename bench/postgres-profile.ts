/**
 * Where PostgreSQL's own time goes on the hot path (issue 16, P2): the S→P→O chain of
 * postgres-statements.ts on one node, in a database of its own so that the PostgreSQL CPU counted is
 * its backends' (plus the server's shared helpers). Reports per round trip: the PostgreSQL CPU, the
 * rows each hot table received (inserts, updates, and how many of those updates were HOT, i.e. wrote
 * no index entry), the index blocks dirtied, and the plan of one batch statement seen during the run
 * (EXPLAIN (ANALYZE, BUFFERS), run again in a transaction that is rolled back).
 * Asserts nothing.
 *
 * Run: PG_URL=postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test node --import tsx bench/postgres-profile.ts [builtin|python] [ms] [--plans]
 */
import pg from 'pg';
// @ts-expect-error: the driver's helpers ship without types; prepareValue turns a JS value into its text form.
import pgUtils from 'pg/lib/utils.js';
import { hotPathPlannerSettings } from '../src/store/postgres/postgres-writes.ts';
import { closedLoop } from './support/load.ts';
import { requiredPgUrl, withDatabase } from './support/postgres-url.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction, type ChainKind } from './support/production.ts';
import { loadAverage, postgresCpuMsByRole } from './support/resources.ts';

const url = requiredPgUrl();
const kind: ChainKind = process.argv[2] === 'python' ? 'python' : 'builtin';
const windowMs = Number(process.argv[3] ?? 3000);
const showPlans = process.argv.includes('--plans');
const database = `conveyor_profile_${process.pid}`;
const databaseUrl = withDatabase(url, database);

/** The batch statements sent during the window: the last one with inserts and patches both is explained. */
let captured: { text: string; values: unknown[] } | undefined;
let capturing = false;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function capturingQuery(this: pg.Client, ...args: unknown[]) {
  const first = args[0] as { name?: unknown; text?: unknown; values?: unknown[] } | undefined;
  if (capturing && typeof first === 'object' && first?.name === 'conveyor-write-batch' && Array.isArray(first.values)) {
    captured = { text: String(first.text), values: first.values };
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
try {
  const production = await openBenchProduction({ items: chainItems(kind, 2), storeUrl: databaseUrl });
  // With the hot path's planner settings, so that the batch explained below is planned as the store's connections plan it.
  const stats = new pg.Client({ connectionString: databaseUrl, options: hotPathPlannerSettings });
  await stats.connect();
  try {
    const call = chainCall(kind, production.running);
    const payload = 'x'.repeat(64);
    await closedLoop((i) => call(benchRequest(i, payload)), 4, 1000);
    const tablesBefore = await tableFigures(stats);
    const cpuBefore = postgresCpuMsByRole(database);
    capturing = true;
    const figures = await closedLoop((i) => call(benchRequest(i, payload)), 4, windowMs);
    capturing = false;
    const cpuAfter = postgresCpuMsByRole(database);
    const cpuMs = (role: string) => (cpuAfter.get(role) ?? 0) - (cpuBefore.get(role) ?? 0);
    // The statistics collector receives a backend's counts when it idles: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const tablesAfter = await tableFigures(stats);
    const n = figures.calls;
    console.log(
      `${kind} S→P→O, pool 2, 4 callers, ${windowMs} ms, load ${loadAverage()
        .map((x) => x.toFixed(2))
        .join(' ')}: ${n} round trips (${Math.round(figures.perSecond)}/s), ` +
        `node CPU ${Math.round(figures.nodeCpuUsPerCall)} µs, PostgreSQL CPU per round trip: ${[...cpuAfter.keys()].map((role) => `${role} ${Math.round((cpuMs(role) * 1000) / n)} µs`).join(', ')}`,
    );
    console.log('  per round trip:      inserts  updates  HOT upd.  seq scans  rows seq-read  index blocks');
    for (const [table, after] of tablesAfter) {
      const before = tablesBefore.get(table);
      if (before === undefined) continue;
      const per = (key: keyof TableFigures) => ((after[key] - before[key]) / n).toFixed(2).padStart(8);
      if (after.inserts === before.inserts && after.updates === before.updates) continue;
      console.log(
        `    ${table.padEnd(16)} ${per('inserts')} ${per('updates')} ${per('hotUpdates')} ${per('seqScans')} ${per('seqRows').padStart(13)} ${per('indexBlocks')}`,
      );
    }
    if (captured !== undefined) {
      console.log('  a batch statement of the run with inserts and patches:');
      await explain(stats, captured);
    }
  } finally {
    await stats.end();
    await production.close();
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}

interface TableFigures {
  inserts: number;
  updates: number;
  hotUpdates: number;
  seqScans: number;
  seqRows: number;
  indexBlocks: number;
}

/** Counts since the database was created, per table; index blocks are those its indexes' scans and writes touched (pg_statio). */
async function tableFigures(client: pg.Client): Promise<Map<string, TableFigures>> {
  const { rows } = await client.query<{ relname: string; ins: string; upd: string; hot: string; seq: string; seqrows: string; idx: string | null }>(
    `SELECT t.relname, t.n_tup_ins AS ins, t.n_tup_upd AS upd, t.n_tup_hot_upd AS hot, t.seq_scan AS seq, t.seq_tup_read AS seqrows, coalesce(io.idx_blks_hit, 0) + coalesce(io.idx_blks_read, 0) AS idx
     FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)`,
  );
  return new Map(
    rows.map((row) => [
      row.relname,
      {
        inserts: Number(row.ins),
        updates: Number(row.upd),
        hotUpdates: Number(row.hot),
        seqScans: Number(row.seq),
        seqRows: Number(row.seqrows),
        indexBlocks: Number(row.idx ?? 0),
      },
    ]),
  );
}

/**
 * The captured batch again, explained, in a transaction rolled back (nothing it writes stays): with
 * a custom plan (the values known to the planner) and with the generic plan a prepared statement
 * switches to after five executions, which is the plan the store's statement runs most of the time.
 */
async function explain(client: pg.Client, statement: { text: string; values: unknown[] }): Promise<void> {
  const values = rewritePatchIds(statement.values);
  // EXPLAIN EXECUTE takes no bound parameters: the values go in as literals, in the driver's text form.
  const literals = values
    .map((value) => {
      const text = pgUtils.prepareValue(value) as string | null;
      return text === null ? 'NULL' : client.escapeLiteral(text);
    })
    .join(', ');
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await client.query(`PREPARE explained AS ${statement.text}`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, WAL) EXECUTE explained (${literals})`);
      const lines = rows.map((row) => row['QUERY PLAN']);
      console.log(`  ${mode}:`);
      const shown = showPlans ? lines : lines.filter((l) => /Execution Time|Planning Time|Seq Scan|Insert on|Update on/.test(l));
      for (const line of shown) console.log(`    ${line}`);
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL');
    }
  }
}

/** The captured inserts may carry ids drawn ahead (`given_id` in the json rows, $3), already used: the statement draws new ones. */
function rewritePatchIds(values: unknown[]): unknown[] {
  const copy = [...values];
  const rows = JSON.parse(String(copy[2])) as Array<Record<string, unknown>>;
  copy[2] = JSON.stringify(rows.map(({ given_id: _used, ...row }) => row));
  return copy;
}
