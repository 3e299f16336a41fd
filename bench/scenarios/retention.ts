/**
 * Retention: the hot path's throughput with and without a purge running beside it. A SQLite store is
 * filled with old finished messages (aged 40 days in the file) and old log entries; the built-in
 * chain (Conveyor.Process.Router → Conveyor.Operation.Echo, durability full) is measured alone, then
 * while a purge of everything older than 30 days runs with the default pacing (batches of 500, at
 * most a fifth of the time), then — for contrast — with the pacing off (duty cycle 1: batch after
 * batch). Prints round trips/s of each, the ratio to the unloaded figure, and the purge's own rate.
 * Run: node --import tsx bench/scenarios/retention.ts [--quick]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defaultPacing, runPurge, type Pacing, type PurgeReport } from '../../src/engine/retention/paced-purge.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewMessage } from '../../src/store/store.ts';
import { concurrencyFor, describe, reduce, repeat, type LoadFigures } from '../support/chain.ts';
import { closedLoop } from '../support/load.ts';
import { benchRequest, chainCall, chainItems, namespace, openBenchProduction } from '../support/production.ts';
import { plan as defaultPlan, quick, runScenario } from '../support/results.ts';
import { fmt } from '../support/stats.ts';

const oldMessages = quick ? 120_000 : 600_000;
const poolSize = 2;
const payloadBytes = 64;
const dayMs = 86_400_000;
/** More windows than the default quick plan: a purge's effect comes in bursts, and the machine is shared. */
const plan = { ...defaultPlan, runs: Math.max(defaultPlan.runs, quick ? 4 : 6) };

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

interface Phase {
  chain: LoadFigures;
  purge: (PurgeReport & { rowsPerSecond: number }) | null;
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
      const measure = async () => reduce(await repeat(plan, (ms) => closedLoop((i) => call(benchRequest(i, payload)), concurrency, ms)), concurrency);

      /** The chain measured while a purge runs beside it; the purge is stopped once the windows are over. */
      const withPurge = async (pacing: Pacing): Promise<Phase> => {
        let stop = false;
        const started = performance.now();
        const purge = runPurge(
          production.store.retention,
          namespace,
          { messagesBefore: Date.now() - 30 * dayMs, logBefore: Date.now() - 30 * dayMs, dryRun: false },
          pacing,
          async () => !stop,
        );
        const chain = await measure();
        stop = true;
        const report = await purge;
        const seconds = (performance.now() - started) / 1000;
        if (report.complete) console.log('      (the purge ended before the windows did: the figure mixes time with and without it)');
        return { chain, purge: { ...report, rowsPerSecond: (report.messages + report.logEntries) / seconds } };
      };

      const alone: Phase = { chain: await measure(), purge: null };
      describe(`built-in S→P→O, pool ${poolSize}, no purge`, alone.chain);
      const paced = await withPurge(defaultPacing);
      describe(`the same with a purge running (batches of ${defaultPacing.batchSize}, duty cycle ${defaultPacing.dutyCycle})`, paced.chain);
      const unpaced = await withPurge({ ...defaultPacing, dutyCycle: 1 });
      describe('the same with an unpaced purge (duty cycle 1, for contrast)', unpaced.chain);
      const ratio = (phase: Phase) => phase.chain.perSecond.median / alone.chain.perSecond.median;
      for (const [label, phase] of [
        ['paced', paced],
        ['unpaced', unpaced],
      ] as const) {
        console.log(
          `   ${label}: hot path at ${fmt(100 * ratio(phase))}% of its throughput; purge ${fmt(phase.purge!.rowsPerSecond)} rows/s (${phase.purge!.messages} messages, ${phase.purge!.logEntries} log entries, ${phase.purge!.batches} batches)`,
        );
      }
      return { alone, paced, unpaced, pacedRatio: ratio(paced), unpacedRatio: ratio(unpaced) };
    } finally {
      await production.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
