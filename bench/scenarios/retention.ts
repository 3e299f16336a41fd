/**
 * Retention: the hot path's throughput with and without a purge running beside it. A SQLite store is
 * filled with old finished messages (aged 40 days in the file) and old log entries; the built-in
 * chain (Conveyor.Process.Router → Conveyor.Operation.Echo, durability full) is measured in pairs of
 * windows, one without the purge and one with it, the order alternating (A B, B A, …): one purge of
 * everything older than 30 days runs across the run, held at a gate between its batches while a
 * window without it runs. On a machine shared with other work, a load that drifts then weighs on
 * both halves of a pair alike, and the figure is the geometric mean of the pairs' ratios (the mean
 * of ratios that neither favours a pair above 100% nor one below). Done with the
 * default pacing (defaultPacing: batches of 250, at most a tenth of the time) and, for contrast,
 * with the pacing off (duty cycle 1: batch after batch). Prints round trips/s of each, the ratios,
 * and the purge's own rate.
 * Run: node --import tsx bench/scenarios/retention.ts [--quick] [--runs=N] [--window=MS]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defaultPacing, runPurge, type Pacing, type PurgeReport } from '../../src/engine/retention/paced-purge.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { concurrencyFor, describe, reduce, type LoadFigures } from '../support/chain.ts';
import { closedLoop, type WindowFigures } from '../support/load.ts';
import { benchRequest, chainCall, chainItems, namespace, openBenchProduction } from '../support/production.ts';
import { plan as defaultPlan, quick, runScenario } from '../support/results.ts';
import { fmt } from '../support/stats.ts';

const oldMessages = quick ? 120_000 : 600_000;
const poolSize = 2;
const payloadBytes = 64;
const dayMs = 86_400_000;
/** Pairs of windows: more than the default plan's runs, since a purge's effect comes in bursts and the machine is shared. */
const plan = { ...defaultPlan, runs: Math.max(defaultPlan.runs, quick ? 6 : 8) };

async function seed(path: string): Promise<void> {
  const store = await openStore({ sqlitePath: path, durability: 'normal' });
  const body = { classname: 'bench_message.BenchRequest', encoding: 'json' as const, data: JSON.stringify({ payload: 'x'.repeat(400) }) };
  const message: NewMessage = {
    namespace,
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Bench',
    target: 'Operation',
    responseRequired: false,
    status: 'completed',
    priority: 0,
    description: '',
    body,
  };
  const chunk = 5_000;
  for (let done = 0; done < oldMessages; done += chunk) {
    await store.messages.insert(Array.from({ length: chunk }, () => message));
    await store.log.append(
      namespace,
      Array.from({ length: chunk / 5 }, () => ({
        type: 'Info' as const,
        configName: 'Operation',
        job: '1',
        messageId: null,
        sessionId: null,
        sourceClass: 'bench',
        sourceMethod: 'seed',
        text: 'an old entry',
      })),
    );
  }
  await store.close();
  const db = new Database(path);
  db.prepare('UPDATE messages SET created_at = created_at - ?').run(40 * dayMs);
  db.prepare('UPDATE log_entries SET time_logged = time_logged - ?').run(40 * dayMs);
  db.close();
}

interface Comparison {
  alone: LoadFigures;
  withPurge: LoadFigures;
  /** Per pair: throughput with the purge over throughput without it. */
  pairRatios: number[];
  /** Their geometric mean. */
  ratio: number;
  purge: PurgeReport & { rowsPerSecond: number };
}

/** A gate the purge waits at between batches: open while a window with the purge runs. */
class Gate {
  #open = false;
  #waiters: Array<() => void> = [];
  set(open: boolean): void {
    this.#open = open;
    if (open) for (const wake of this.#waiters.splice(0)) wake();
  }
  async pass(): Promise<void> {
    if (!this.#open) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

await runScenario('retention', { ...plan, oldMessages, poolSize, payloadBytes, components: 'builtin', durability: 'full', pacing: defaultPacing }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-retention-'));
  try {
    const path = join(dir, 'conveyor.db');
    await seed(path);
    const production = await openBenchProduction({ items: chainItems('builtin', poolSize), storePath: path });
    try {
      const call = chainCall('builtin', production.running);
      const payload = 'x'.repeat(payloadBytes);
      const concurrency = concurrencyFor(poolSize);
      const window = (ms: number) => closedLoop((i) => call(benchRequest(i, payload)), concurrency, ms);

      /** Pairs of windows without and with one purge, which waits at its gate outside the windows with it. */
      const compare = async (pacing: Pacing): Promise<Comparison> => {
        const gate = new Gate();
        let stop = false;
        let purgeMs = 0;
        const purge = runPurge(
          production.store.retention,
          namespace,
          { messagesBefore: Date.now() - 30 * dayMs, logBefore: Date.now() - 30 * dayMs, dryRun: false },
          pacing,
          async () => {
            await gate.pass();
            return !stop;
          },
        );
        const withPurge = async (ms: number) => {
          gate.set(true);
          const started = performance.now();
          try {
            return await window(ms);
          } finally {
            gate.set(false);
            purgeMs += performance.now() - started;
          }
        };
        await window(plan.warmupMs);
        const alone: WindowFigures[] = [];
        const loaded: WindowFigures[] = [];
        for (let pair = 0; pair < plan.runs; pair += 1) {
          if (pair % 2 === 0) {
            alone.push(await window(plan.windowMs));
            loaded.push(await withPurge(plan.windowMs));
          } else {
            loaded.push(await withPurge(plan.windowMs));
            alone.push(await window(plan.windowMs));
          }
        }
        stop = true;
        gate.set(true);
        const report = await purge;
        if (report.complete) console.log('      (the purge ended before the windows did: the last windows with it ran partly without it)');
        const pairRatios = loaded.map((figures, pair) => figures.perSecond / alone[pair]!.perSecond);
        return {
          alone: reduce(alone, concurrency),
          withPurge: reduce(loaded, concurrency),
          pairRatios,
          ratio: Math.exp(pairRatios.reduce((sum, r) => sum + Math.log(r), 0) / pairRatios.length),
          purge: { ...report, rowsPerSecond: (report.messages + report.logEntries) / (purgeMs / 1000) },
        };
      };

      const paced = await compare(defaultPacing);
      describe(`built-in S→P→O, pool ${poolSize}, no purge (windows beside the paced purge's)`, paced.alone);
      describe(`the same with a purge running (batches of ${defaultPacing.batchSize}, duty cycle ${defaultPacing.dutyCycle})`, paced.withPurge);
      const unpaced = await compare({ ...defaultPacing, dutyCycle: 1 });
      describe("no purge (windows beside the unpaced purge's)", unpaced.alone);
      describe('the same with an unpaced purge (duty cycle 1, for contrast)', unpaced.withPurge);
      for (const [label, comparison] of [
        ['paced', paced],
        ['unpaced', unpaced],
      ] as const) {
        console.log(
          `   ${label}: hot path at ${fmt(100 * comparison.ratio)}% of its throughput (geometric mean of ${comparison.pairRatios.length} pairs: ${comparison.pairRatios.map((r) => `${fmt(100 * r)}%`).join(' ')}); purge ${fmt(comparison.purge.rowsPerSecond)} rows/s while running (${comparison.purge.messages} messages, ${comparison.purge.logEntries} log entries, ${comparison.purge.batches} batches)`,
        );
      }
      return { paced, unpaced, pacedRatio: paced.ratio, unpacedRatio: unpaced.ratio };
    } finally {
      await production.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
