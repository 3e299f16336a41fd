/**
 * Message inserts on the PostgreSQL store: group commit (one transaction per flush, up to 500 rows)
 * against plain concurrent commits (one transaction per insert, up to `poolSize` at once, which
 * PostgreSQL itself groups into shared WAL flushes). Prints rows/s and this process's CPU time per
 * 1,000 rows; asserts nothing.
 *
 * Run: PG_URL=postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test node --import tsx bench/postgres-store.ts [messages]
 * Works in a throwaway schema, dropped at the end.
 */
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/index.ts';
import type { Store } from '../src/store/store.ts';
import { requiredPgUrl } from './support/postgres-url.ts';
import { queuedBenchMessage } from './support/queued-message.ts';

const url = requiredPgUrl();
const total = Number(process.argv[2] ?? 10_000);
const schema = `bench_${process.pid}`;

async function allAtOnce(store: Store): Promise<void> {
  await Promise.all(Array.from({ length: total }, (_, i) => store.messages.insert([queuedBenchMessage(i)])));
}

async function closedLoop(store: Store, writers: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < total) await store.messages.insert([queuedBenchMessage(next++)]);
    }),
  );
}

async function measure(groupCommit: boolean, shape: string, run: (store: Store) => Promise<void>): Promise<void> {
  const store = await openPostgresStore(url, { schema, groupCommit, poolSize: 10 });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await run(store);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await store.close();
  const rate = Math.round((total / ms) * 1000);
  const cpuPerThousand = ((cpu.user + cpu.system) / 1000 / (total / 1000)).toFixed(1);
  const mode = groupCommit ? 'group commit' : 'plain commits';
  console.log(
    `  ${mode.padEnd(13)} ${shape.padEnd(11)} ${ms.toFixed(0).padStart(7)} ms  ${rate.toLocaleString('en').padStart(8)} rows/s  ${cpuPerThousand.padStart(6)} ms node CPU / 1,000 rows`,
  );
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
try {
  const { rows } = await admin.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
  console.log(`PostgreSQL message inserts, ${total.toLocaleString('en')} single-message inserts each (synchronous_commit=${rows[0]!.synchronous_commit})`);
  for (const groupCommit of [true, false]) {
    for (const [shape, run] of [
      ['all at once', allAtOnce],
      ['64 writers', (s: Store) => closedLoop(s, 64)],
    ] as const) {
      await measure(groupCommit, shape, run);
    }
  }
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
