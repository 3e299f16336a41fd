/**
 * Header queries of the SQLite store on a large message table. Seeds N messages (default 1,000,000;
 * 10 targets, ~1 % errors, 200 still queued, sessions of 3 messages), reopens the store, then
 * prints how long each query takes (median of 5 runs). Asserts nothing.
 * Run: node --import tsx bench/store-queries.ts [messages]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageStatus } from '../src/core/message.ts';
import { openStore } from '../src/store/open-store.ts';
import type { MessageFilter, NewMessage, Store } from '../src/store/store.ts';

const total = Number(process.argv[2] ?? 1_000_000);
const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-queries-'));
const path = join(dir, 'store.db');

function message(i: number, sessionId: number | null): NewMessage {
  const status: MessageStatus = i >= total - 200 ? 'queued' : i % 97 === 0 ? 'error' : 'completed';
  return {
    namespace: 'USER',
    sessionId,
    parentId: sessionId,
    correspondingId: null,
    kind: i % 2 === 0 ? 'request' : 'response',
    source: `Service${i % 4}`,
    target: `Operation${i % 10}`,
    responseRequired: false,
    status,
    priority: 0,
    description: '',
    body: { classname: `msg.Kind${i % 5}`, encoding: 'json', data: JSON.stringify({ sequence: i, name: `customer-${i}`, payload: 'x'.repeat(120) }) },
  };
}

/** Every third message starts a session; the others join a session started in the previous chunk (ids are known by then). */
async function seed(store: Store): Promise<{ firstCreated: number; middleSession: number }> {
  let starters: number[] = [];
  let middleSession = 0;
  const started = performance.now();
  for (let start = 0; start < total; start += 6_000) {
    const end = Math.min(total, start + 6_000);
    const inserts: Array<Promise<number[]>> = [];
    for (let i = start; i < end; i += 1) {
      const starter = i % 3 === 0 || starters.length === 0 ? null : starters[Math.floor((i - start) / 3) % starters.length]!;
      inserts.push(store.messages.insert([message(i, starter)]));
    }
    const ids = await Promise.all(inserts);
    starters = ids.filter((_, index) => (start + index) % 3 === 0).map((r) => r[0]!);
    if (start <= total / 2 && total / 2 < end) middleSession = starters[0]!;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `seeded ${total.toLocaleString('en')} messages in ${seconds.toFixed(1)} s (${Math.round(total / seconds).toLocaleString('en')} rows/s, durability normal)`,
  );
  const first = await store.messages.get('USER', 1);
  return { firstCreated: first!.createdAt, middleSession };
}

async function time(label: string, run: () => Promise<unknown[] | number>): Promise<void> {
  const samples: number[] = [];
  let size = 0;
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    const result = await run();
    samples.push(performance.now() - started);
    size = typeof result === 'number' ? result : result.length;
  }
  samples.sort((a, b) => a - b);
  console.log(`  ${label.padEnd(44)} ${samples[2]!.toFixed(2).padStart(9)} ms  (${size} rows)`);
}

try {
  const writer = await openStore({ sqlitePath: path, durability: 'normal' });
  const { firstCreated, middleSession } = await seed(writer);
  await writer.close();
  const store = await openStore({ sqlitePath: path });
  const search = (filter: Omit<MessageFilter, 'limit'>) => () => store.messages.search('USER', { limit: 50, ...filter });
  console.log('queries (median of 5):');
  await time('search newest 50', search({}));
  await time('search page deep in the middle (beforeId)', search({ beforeId: Math.floor(total / 2) }));
  await time('search target', search({ target: 'Operation3' }));
  await time('search target + status', search({ target: 'Operation3', status: 'completed' }));
  await time('search status error', search({ status: 'error' }));
  await time('search source', search({ source: 'Service1' }));
  await time('search classname', search({ classname: 'msg.Kind2' }));
  await time('search first second (from/to)', search({ from: firstCreated, to: firstCreated + 1000 }));
  await time('search text, common', search({ text: 'customer-1' }));
  await time('search text, one hit near the start', search({ text: '"customer-17"' }));
  await time('session (middle of the table)', () => store.messages.session('USER', middleSession));
  await time('unfinished', () => store.messages.unfinished('USER'));
  await time('queueDepths', () => store.messages.queueDepths('USER'));
  await time('count', () => store.messages.count('USER'));
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
