/**
 * Message inserts through group commit on the SQLite store, per durability setting. Prints rows/s;
 * asserts nothing. Run: node --import tsx bench/store-insert.ts [messages]
 *
 * Two shapes: every insert fired at once (the committer batches up to 500 rows per transaction),
 * and a closed loop of 64 writers each waiting for its own insert (closer to how the engine writes).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';
import { queuedBenchMessage } from './support/queued-message.ts';

const total = Number(process.argv[2] ?? 20_000);

async function allAtOnce(store: Store): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: total }, (_, i) => store.messages.insert([queuedBenchMessage(i)])));
  return performance.now() - started;
}

async function closedLoop(store: Store, writers: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < total) await store.messages.insert([queuedBenchMessage(next++)]);
    }),
  );
  return performance.now() - started;
}

const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-store-'));
try {
  console.log(`SQLite message inserts through group commit, ${total.toLocaleString('en')} single-message inserts each`);
  for (const durability of ['full', 'normal'] as const) {
    for (const [shape, run] of [
      ['all at once', allAtOnce],
      ['64 writers', (s: Store) => closedLoop(s, 64)],
    ] as const) {
      const store = await openStore({ sqlitePath: join(dir, `${durability}-${shape.replace(/ /g, '-')}.db`), durability });
      const ms = await run(store);
      await store.close();
      const rate = Math.round((total / ms) * 1000);
      console.log(`  ${durability.padEnd(6)} ${shape.padEnd(11)} ${ms.toFixed(0).padStart(6)} ms  ${rate.toLocaleString('en').padStart(8)} rows/s`);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
