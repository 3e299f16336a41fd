/**
 * Queue throughput with one, two and three nodes on one PostgreSQL database, at the store level:
 * each node is a separate Node.js process with its own store that claims batches of queued requests
 * (SKIP LOCKED, leases) and marks them completed (group commit), until the queue is empty. Prints
 * messages/s and messages per CPU second (node processes + PostgreSQL backends, read from /proc),
 * because all nodes share this machine's cores. Asserts nothing.
 *
 * Run: PG_URL=postgres://conveyor:conveyor@127.0.0.1:5432/conveyor_test node --import tsx bench/postgres-nodes.ts [messages]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/index.ts';
import { requiredPgUrl } from './support/postgres-url.ts';
import { queuedBenchMessage } from './support/queued-message.ts';
import { postgresCpuMs } from './support/resources.ts';

const url = requiredPgUrl();
const targets = ['OpA', 'OpB'];

if (process.argv[2] === '--node') {
  await runNode(process.argv[3]!, process.argv[4]!);
} else {
  await main(Number(process.argv[2] ?? 20_000));
}

/**
 * One node: opens its store, says ready, drains on "start", reports, and keeps its connections open
 * until told to exit (PostgreSQL backends' CPU time vanishes from /proc when they exit).
 */
async function runNode(schema: string, nodeId: string): Promise<void> {
  const store = await openPostgresStore(url, { schema, poolSize: 4 });
  await store.messages.count('USER');
  const next = (): Promise<unknown> => new Promise((resolve) => process.once('message', resolve));
  const start = next();
  process.send!({ ready: true });
  await start;
  const cpu = process.cpuUsage();
  let handled = 0;
  // Four claim loops, as four idle jobs would.
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      for (;;) {
        const batch = await store.messages.claim('USER', targets, nodeId, 25, 30_000);
        if (batch.length === 0) return;
        await store.messages.update(batch.map((m) => ({ id: m.id, status: 'completed' as const, leaseOwner: null, leaseUntil: null })));
        handled += batch.length;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const exit = next();
  process.send!({ handled, cpuMs: (used.user + used.system) / 1000 });
  await exit;
  await store.close();
  process.disconnect();
}

async function main(total: number): Promise<void> {
  console.log(`Queue drain at the store level: ${total.toLocaleString('en')} queued requests, nodes claim 25 at a time (4 loops each) and complete them`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const nodes of [1, 2, 3]) {
    const schema = `bench_nodes_${process.pid}_${nodes}`;
    try {
      const store = await openPostgresStore(url, { schema });
      for (let start = 0; start < total; start += 1000) {
        await Promise.all(
          Array.from({ length: Math.min(1000, total - start) }, (_, i) =>
            store.messages.insert([queuedBenchMessage(start + i, targets[(start + i) % targets.length]!)]),
          ),
        );
      }
      await store.close();
      await admin.query(`ANALYZE ${schema}.messages`);
      // Children start and connect before the clock starts; each drains on "start".
      const children = Array.from({ length: nodes }, (_, n) =>
        fork(fileURLToPath(import.meta.url), ['--node', schema, `node-${n}`], { execArgv: ['--import', 'tsx'] }),
      );
      const reply = <T>(child: ChildProcess): Promise<T> =>
        new Promise<T>((resolve, reject) => {
          child.once('message', (value) => resolve(value as T));
          child.once('exit', (code) => reject(new Error(`a node exited early (${code})`)));
        });
      await Promise.all(children.map((child) => reply(child)));
      const pgBefore = postgresCpuMs();
      const started = performance.now();
      const pending = children.map((child) => reply<{ handled: number; cpuMs: number }>(child));
      for (const child of children) child.send('start');
      const results = await Promise.all(pending);
      const seconds = (performance.now() - started) / 1000;
      const pgCpuS = (postgresCpuMs() - pgBefore) / 1000;
      await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve).send('exit'))));
      const handled = results.reduce((sum, r) => sum + r.handled, 0);
      const nodeCpuS = results.reduce((sum, r) => sum + r.cpuMs, 0) / 1000;
      console.log(
        `  ${nodes} node${nodes > 1 ? 's' : ' '}  ${handled.toLocaleString('en').padStart(7)} handled (${results.map((r) => r.handled).join(' / ')})` +
          `  ${Math.round(handled / seconds)
            .toLocaleString('en')
            .padStart(6)} msg/s` +
          `  ${Math.round(handled / (nodeCpuS + pgCpuS))
            .toLocaleString('en')
            .padStart(6)} msg per CPU s (node ${nodeCpuS.toFixed(1)} s + PostgreSQL ${pgCpuS.toFixed(1)} s)`,
      );
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  }
  await admin.end();
}
