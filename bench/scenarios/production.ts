/**
 * Scenario 1, production throughput and latency: a Python service → process → operation chain,
 * every message persisted (SQLite, durability full), pool sizes 1, 2 and 4. The benchmark pushes
 * each input into the Python business service (RunningProduction.processInput, what an inbound
 * adapter does), the service calls the process synchronously, the process calls the operation
 * synchronously. Then one synchronous hop (bench → Python operation) at durability full and normal:
 * its maximum rate and its latency at half that rate, beside the disk's fsync latency. Last, for
 * the analysis only, the chain at pool size 2 with durability `normal` (no fsync per commit): how
 * much of the time is the disk's.
 * Run: node --import tsx bench/scenarios/production.ts [--quick]
 */
import { describe, measureChain, measureChainAtRate, measureHop, type LoadFigures } from '../support/chain.ts';
import { fsyncLatency } from '../support/fsync-latency.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { fmt } from '../support/stats.ts';

const pools = quick ? [1, 2] : [1, 2, 4, 8];
const payloadBytes = 64;

await runScenario(
  'production',
  { ...plan, pools, payloadBytes, components: 'python', durability: 'full', driver: 'processInput into the Python service' },
  async () => {
    const chain: Record<string, LoadFigures> = {};
    for (const poolSize of pools) {
      chain[`pool${poolSize}`] = await measureChain({ kind: 'python', poolSize, payloadBytes }, plan);
      describe(`Python S→P→O, pool size ${poolSize}`, chain[`pool${poolSize}`]!);
    }
    const best = Math.max(...Object.values(chain).map((f) => f.perSecond.median));
    const bestPool = pools.find((p) => chain[`pool${p}`]!.perSecond.median === best)!;
    const chainAtHalf = await measureChainAtRate({ kind: 'python', poolSize: bestPool, payloadBytes }, Math.max(1, Math.round(best / 2)), plan);
    describe(`Python S→P→O at half its best rate (${fmt(chainAtHalf.offeredPerSecond)}/s offered, pool ${bestPool})`, chainAtHalf);
    // The sync hop's bar: p99 at half its maximum rate under 2 ms at durability normal; at full, at most the disk's fsync p99 + 1 ms.
    const hop: Record<string, Awaited<ReturnType<typeof measureHop>>> = {};
    const hopNormal: Record<string, Awaited<ReturnType<typeof measureHop>>> = {};
    for (const [durability, figures] of [
      ['full', hop],
      ['normal', hopNormal],
    ] as const) {
      for (const poolSize of [1, 2]) {
        const measured = (figures[`pool${poolSize}`] = await measureHop(poolSize, plan, durability));
        describe(`one sync hop into a Python operation, pool ${poolSize}, durability ${durability}, max rate`, measured.max);
        describe(`one sync hop, pool ${poolSize}, durability ${durability}, at half the max (${fmt(measured.half.offeredPerSecond)}/s offered)`, measured.half);
      }
    }
    const fsync = fsyncLatency();
    console.log(`   the disk: 8 KB appended and fdatasync'd, p50 ${fmt(fsync.p50Ms)} ms, p99 ${fmt(fsync.p99Ms)} ms (${fsync.count} syncs)`);
    const withoutFsync = await measureChain({ kind: 'python', poolSize: 2, payloadBytes, durability: 'normal' }, plan);
    describe('Python S→P→O, pool size 2, durability normal (no fsync: analysis only)', withoutFsync);
    return { chain, bestPool, chainAtHalf, hop, hopNormal, fsync, withoutFsync };
  },
);
