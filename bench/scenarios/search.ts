/**
 * Scenario: message search on a big store. Fills a store with 1,000,000 messages (100,000 with --quick)
 * straight through `messages.insert` in batches of 10,000 (not through the engine), then times
 * `messages.find` — what GET /messages/search and the exports run — for header filters, the error
 * substring and JSON body conditions, rare and frequent, on the first page and, for the rare body
 * condition, over the whole store by following the cursor (what an export of it does).
 * Run: node --import tsx bench/scenarios/search.ts [--quick] [--postgres]   (--postgres: PG_URL, a scratch schema)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBodyCondition } from '../../src/core/body-condition.ts';
import { openStore } from '../../src/store/open-store.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { MessageSearch, NewMessage, Store } from '../../src/store/store.ts';
import { quick, runScenario } from '../support/results.ts';
import { fmt } from '../support/stats.ts';

const stored = quick ? 100_000 : 1_000_000;
const batch = 10_000;
const repeats = quick ? 5 : 9;
const pageSize = 50;
/** The route's default scan bound (src/api/message-search-routes.ts). */
const scanLimit = 20_000;
const onPostgres = process.argv.includes('--postgres');
const namespace = 'USER';
const sources = ['HL7In', 'LabIn', 'FileIn', 'ApiIn'];
const targets = ['Router', 'LabOperation', 'Archive', 'Billing'];

/** Message i: patient id i mod 100,000 (so `$.patient.id = 42` matches 1 in 100,000), "urgent" in 1 of 1,000 names, 1 in 100 failed. */
function messageAt(i: number): NewMessage {
  const failed = i % 100 === 7;
  return {
    namespace,
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: i % 2 === 0 ? 'request' : 'response',
    source: sources[i % sources.length]!,
    target: targets[(i >> 2) % targets.length]!,
    responseRequired: i % 2 === 0,
    status: failed ? 'error' : 'completed',
    priority: 0,
    description: '',
    body: {
      classname: i % 5 === 0 ? 'msg.LabResult' : 'msg.Admission',
      encoding: 'json',
      data: JSON.stringify({
        patient: { id: i % 100_000, name: i % 1000 === 3 ? `urgent case ${i}` : `Patient ${i}` },
        ward: `W${i % 40}`,
        items: [{ sku: `S-${i % 997}` }],
      }),
    },
  };
}

async function fill(store: Store): Promise<{ seconds: number; perSecond: number; errored: number }> {
  const started = performance.now();
  let errored = 0;
  for (let done = 0; done < stored; done += batch) {
    const messages = Array.from({ length: Math.min(batch, stored - done) }, (_, k) => messageAt(done + k));
    const ids = await store.messages.insert(messages);
    const patches = ids.flatMap((id, k) => (messages[k]!.status === 'error' ? [{ id, error: `ConnectionRefusedError: ${targets[k % 4]} down` }] : []));
    errored += patches.length;
    await store.messages.update(patches);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`   filled ${stored.toLocaleString('en')} messages in ${fmt(seconds)} s (${fmt(stored / seconds)} messages/s)`);
  return { seconds, perSecond: stored / seconds, errored };
}

interface Timing {
  name: string;
  medianMs: number;
  maxMs: number;
  hits: number;
  scanned: number;
}

async function time(store: Store, name: string, search: Omit<MessageSearch, 'limit' | 'scanLimit'>): Promise<Timing> {
  const samples: number[] = [];
  let hits = 0;
  let scanned = 0;
  for (let run = 0; run < repeats; run += 1) {
    const started = performance.now();
    const page = await store.messages.find(namespace, { ...search, limit: pageSize, scanLimit, bodyChars: 200 });
    samples.push(performance.now() - started);
    hits = page.hits.length;
    scanned = page.scanned;
  }
  samples.sort((a, b) => a - b);
  const timing = { name, medianMs: samples[Math.floor(samples.length / 2)]!, maxMs: samples.at(-1)!, hits, scanned };
  console.log(
    `   ${name.padEnd(58)} median ${fmt(timing.medianMs).padStart(7)} ms  max ${fmt(timing.maxMs).padStart(7)} ms  hits ${hits}${scanned ? `, stopped after ${scanned}` : ''}`,
  );
  return timing;
}

/** Follows the cursor to the end, as an export does: the whole store walked once, page by page. */
async function walk(store: Store, name: string, search: Omit<MessageSearch, 'limit' | 'scanLimit'>) {
  const started = performance.now();
  let pages = 0;
  let hits = 0;
  let slowestPageMs = 0;
  let beforeId: number | undefined;
  for (;;) {
    const pageStarted = performance.now();
    const page = await store.messages.find(namespace, { ...search, ...(beforeId !== undefined ? { beforeId } : {}), limit: 500, scanLimit });
    slowestPageMs = Math.max(slowestPageMs, performance.now() - pageStarted);
    pages += 1;
    hits += page.hits.length;
    if (page.next === null) break;
    beforeId = page.next;
  }
  const totalMs = performance.now() - started;
  console.log(`   ${name.padEnd(58)} total ${fmt(totalMs).padStart(8)} ms  ${pages} pages (slowest ${fmt(slowestPageMs)} ms)  hits ${hits}`);
  return { name, totalMs, pages, hits, slowestPageMs };
}

async function openBenchStore(dir: string): Promise<{ store: Store; drop: () => Promise<void> }> {
  if (!onPostgres) return { store: await openStore({ sqlitePath: join(dir, 'search.db'), durability: 'normal' }), drop: async () => undefined };
  const url = process.env['PG_URL'];
  if (!url) throw new Error('--postgres needs PG_URL');
  const schema = `bench_search_${process.pid}`;
  const store = await openPostgresStore(url, { schema });
  return {
    store,
    drop: async () => {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

await runScenario(
  onPostgres ? 'search-postgres' : 'search',
  { stored, batch, repeats, pageSize, scanLimit, driver: onPostgres ? 'postgres' : 'sqlite (durability normal)' },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-search-'));
    const { store, drop } = await openBenchStore(dir);
    try {
      const filled = await fill(store);
      const newest = (await store.messages.find(namespace, { limit: 1, scanLimit })).hits[0]!;
      const fillMs = filled.seconds * 1000;
      // An instant that far back into the fill, in whole milliseconds as the route passes them (PostgreSQL's bigint refuses a fraction).
      const back = (share: number) => newest.createdAt - Math.round(fillMs * share);
      const body = (condition: string) => ({ body: parseBodyCondition(condition) });
      const pages = [
        await time(store, 'newest page (no filter)', {}),
        await time(store, 'target + status (LabOperation, error)', { target: 'LabOperation', status: 'error' }),
        await time(store, 'source (FileIn)', { source: 'FileIn' }),
        await time(store, 'class (msg.LabResult)', { classname: 'msg.LabResult' }),
        await time(store, 'time range (a tenth of the store, in its middle)', { from: back(0.55), to: back(0.45) }),
        await time(store, 'time range + body $.ward = "W7"', {
          from: back(0.55),
          to: back(0.45),
          ...body('$.ward = "W7"'),
        }),
        await time(store, 'error contains "Billing down"', { error: 'Billing down' }),
        await time(store, 'body $.patient.name contains "urgent" (1 in 1,000)', body('$.patient.name contains "urgent"')),
        await time(store, 'body $.ward = "W7" (1 in 40)', body('$.ward = "W7"')),
        await time(store, 'body $.patient.id = 42 (1 in 100,000): first page', body('$.patient.id = 42')),
        await time(store, 'body $.items[0].sku = "S-5" and source ApiIn', { ...body('$.items[0].sku = "S-5"'), source: 'ApiIn' }),
        await time(store, 'body text contains "urgent case 99"', { text: 'urgent case 99' }),
      ];
      const walks = [await walk(store, 'body $.patient.id = 42, every page to the end', body('$.patient.id = 42'))];
      return { filled, pages, walks };
    } finally {
      await store.close();
      await drop();
      await rm(dir, { recursive: true, force: true });
    }
  },
);
