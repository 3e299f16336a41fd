/**
 * Scenario 7, growth: (a) the Python chain's throughput on a store already holding 1 million
 * messages versus an empty store, runs interleaved so drifting machine load hits both alike;
 * (b) throughput with 1 KB, 100 KB and 1 MB bodies; (c) resident memory over a long run at full
 * load (Node and the Python workers), sampled every second: is it flat after the warm-up?
 * Run: node --import tsx bench/scenarios/growth.ts [--quick] [--long=SECONDS] [--parts=stored,bodies,memory]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedLoop } from '../support/load.ts';
import { concurrencyFor, describe, measureChain, reduce, type LoadFigures } from '../support/chain.ts';
import { benchRequest, chainCall, chainItems, namespace, openBenchProduction } from '../support/production.ts';
import { mb, RssSampler } from '../support/resources.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { fmt, fmtSpread, spread } from '../support/stats.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';

const storedMessages = quick ? 100_000 : 1_000_000;
const poolSize = 2;
const payloadBytes = 64;
const bodySizes = [1024, 100 * 1024, 1024 * 1024];
const longRunS = Number(process.argv.find((arg) => arg.startsWith('--long='))?.slice(7) ?? (quick ? 10 : 60));
const longWarmupS = Math.min(10, Math.ceil(longRunS / 6));
/** `--parts=memory` runs only the long run (e.g. with --long=600 for the 10-minute figure). */
const parts = process.argv
  .find((arg) => arg.startsWith('--parts='))
  ?.slice(8)
  .split(',') ?? ['stored', 'bodies', 'memory'];

/** Fills a store with completed request/response pairs in big transactions (not through the engine). */
async function fill(path: string, count: number): Promise<{ seconds: number; perSecond: number }> {
  const store = await openStore({ sqlitePath: path });
  const started = performance.now();
  const body = { classname: 'bench_message.BenchRequest', encoding: 'json' as const, data: JSON.stringify({ sequence: 0, payload: 'x'.repeat(payloadBytes) }) };
  const batch = 10_000;
  for (let done = 0; done < count; done += batch) {
    const messages: NewMessage[] = Array.from({ length: Math.min(batch, count - done) }, (_, i) => ({
      namespace,
      sessionId: null,
      parentId: null,
      correspondingId: null,
      kind: i % 2 === 0 ? 'request' : 'response',
      source: 'Process',
      target: 'Operation',
      responseRequired: true,
      status: 'completed',
      priority: 0,
      description: '',
      body,
    }));
    await store.messages.insert(messages);
  }
  const stored = await store.messages.count(namespace);
  await store.close();
  const seconds = (performance.now() - started) / 1000;
  console.log(`   filled ${stored.toLocaleString('en')} messages in ${fmt(seconds)} s (${fmt(stored / seconds)} messages/s)`);
  return { seconds, perSecond: stored / seconds };
}

async function storedVersusEmpty(dir: string) {
  const fullPath = join(dir, 'full.db');
  const filling = await fill(fullPath, storedMessages);
  const one = { ...plan, runs: 1 };
  const empty: LoadFigures[] = [];
  const full: LoadFigures[] = [];
  for (let run = 0; run < plan.runs; run++) {
    empty.push(await measureChain({ kind: 'python', poolSize, payloadBytes }, one));
    full.push(await measureChain({ kind: 'python', poolSize, payloadBytes, storePath: fullPath }, one));
  }
  const emptyRate = spread(empty.map((f) => f.perSecond.median));
  const fullRate = spread(full.map((f) => f.perSecond.median));
  const ratio = fullRate.median / emptyRate.median;
  console.log(`   empty store: ${fmtSpread(emptyRate, ' round trips/s')}`);
  console.log(`   ${storedMessages.toLocaleString('en')} stored: ${fmtSpread(fullRate, ' round trips/s')}  → ${(ratio * 100).toFixed(0)}% of empty`);
  return { storedMessages, filling, emptyPerSecond: emptyRate, storedPerSecond: fullRate, ratio };
}

async function bodies() {
  const result: Record<string, LoadFigures> = {};
  for (const size of bodySizes) {
    const label = size >= 1024 * 1024 ? `${size / 1024 / 1024}MB` : `${size / 1024}KB`;
    result[label] = await measureChain({ kind: 'python', poolSize, payloadBytes: size }, plan);
    describe(`bodies of ${label}, Python chain pool ${poolSize}`, result[label]!);
  }
  return result;
}

async function longRun() {
  const production = await openBenchProduction({ items: chainItems('python', poolSize) });
  try {
    const call = chainCall('python', production.running);
    const payload = 'x'.repeat(payloadBytes);
    await closedLoop((i) => call(benchRequest(i, payload)), concurrencyFor(poolSize), longWarmupS * 1000);
    const rss = new RssSampler(1000);
    const load = await closedLoop((i) => call(benchRequest(i, payload)), concurrencyFor(poolSize), longRunS * 1000);
    rss.stop();
    const samples = rss.samples.map((s) => ({ atS: Math.round(s.atMs / 100) / 10, nodeMb: mb(s.nodeBytes), totalMb: mb(s.totalBytes) }));
    // Growth: least-squares slope of the second half (after the heap settles), in MB per minute.
    const tail = samples.slice(Math.floor(samples.length / 2));
    const slope = (key: 'nodeMb' | 'totalMb') => {
      const n = tail.length;
      const mx = tail.reduce((s, p) => s + p.atS, 0) / n;
      const my = tail.reduce((s, p) => s + p[key], 0) / n;
      const num = tail.reduce((s, p) => s + (p.atS - mx) * (p[key] - my), 0);
      const den = tail.reduce((s, p) => s + (p.atS - mx) ** 2, 0);
      return den === 0 ? 0 : (num / den) * 60;
    };
    const figures = {
      seconds: longRunS,
      warmupSeconds: longWarmupS,
      load: reduce([load], concurrencyFor(poolSize)),
      firstMb: samples[0]!,
      lastMb: samples[samples.length - 1]!,
      peakMb: { node: mb(rss.peakNodeBytes), total: mb(rss.peakTotalBytes) },
      slopeMbPerMinute: { node: slope('nodeMb'), total: slope('totalMb') },
      storedMessages: await production.store.messages.count(namespace),
      samples,
    };
    console.log(
      `   long run ${longRunS} s at ${fmt(load.perSecond)} round trips/s: node RSS ${fmt(figures.firstMb.nodeMb)} → ${fmt(figures.lastMb.nodeMb)} MB (peak ${fmt(figures.peakMb.node)}), with workers ${fmt(figures.firstMb.totalMb)} → ${fmt(figures.lastMb.totalMb)} MB; second-half slope node ${fmt(figures.slopeMbPerMinute.node)} MB/min, total ${fmt(figures.slopeMbPerMinute.total)} MB/min`,
    );
    return figures;
  } finally {
    await production.close();
  }
}

await runScenario(
  parts.length === 3 ? 'growth' : `growth-${parts.join('-')}`,
  { ...plan, storedMessages, poolSize, payloadBytes, bodySizes, longRunS, longWarmupS, components: 'python', parts },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-growth-'));
    try {
      const stored = parts.includes('stored') ? await storedVersusEmpty(dir) : null;
      const bodyFigures = parts.includes('bodies') ? await bodies() : null;
      const memory = parts.includes('memory') ? await longRun() : null;
      return { stored, bodies: bodyFigures, memory };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
