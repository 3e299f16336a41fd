/**
 * Scenario 3, the floor: the unavoidable work of scenario 1 without the engine, to say how close
 * the engine comes to what this machine can do (bench/support/floor-chain.ts): five round trips over
 * a pipe to three python3 processes per round trip, six row writes behind one commit barrier,
 * group-committed into SQLite with the WAL synced off the event loop. Measured in turns with the
 * engine's own Python chain, so the ratio compares like with like on a busy machine.
 * Run: node --import tsx bench/scenarios/floor.ts [--quick]
 */
import { concurrencyFor, describe, reduce, type LoadFigures } from '../support/chain.ts';
import { closedLoop, type WindowFigures } from '../support/load.ts';
import { openFloor } from '../support/floor-chain.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction } from '../support/production.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import { fmt, fmtSpread, spread, type Spread } from '../support/stats.ts';

const pools = quick ? [1, 2] : [1, 2, 4, 8];
const payloadBytes = 64;

/**
 * The floor and the engine's Python chain side by side, windows taken in turn (engine, floor,
 * engine, floor…) so that the machine's drifting load weighs on both alike; the ratio is taken
 * per pair of neighbouring windows.
 */
async function floorAndEngine(poolSize: number) {
  const floor = openFloor(poolSize, payloadBytes);
  const production = await openBenchProduction({ items: chainItems('python', poolSize) });
  try {
    const concurrency = concurrencyFor(poolSize);
    const chain = chainCall('python', production.running);
    const payload = 'x'.repeat(payloadBytes);
    const engineWindow = (ms: number) => closedLoop((i) => chain(benchRequest(i, payload)), concurrency, ms);
    const floorWindow = (ms: number) => closedLoop((i) => floor.call(i), concurrency, ms);
    await engineWindow(plan.warmupMs);
    await floorWindow(plan.warmupMs);
    const engine: WindowFigures[] = [];
    const bare: WindowFigures[] = [];
    for (let run = 0; run < plan.runs; run++) {
      engine.push(await engineWindow(plan.windowMs));
      bare.push(await floorWindow(plan.windowMs));
    }
    const cpu = (w: WindowFigures) => w.nodeCpuUsPerCall + w.childCpuUsPerCall;
    return {
      floor: reduce(bare, concurrency),
      engine: reduce(engine, concurrency),
      /** Engine round trips/s over floor round trips/s, per pair of windows. */
      ratio: spread(engine.map((w, i) => w.perSecond / bare[i]!.perSecond)),
      /** Floor CPU per round trip over the engine's: the share of the engine's CPU that is unavoidable. */
      cpuRatio: spread(engine.map((w, i) => cpu(bare[i]!) / cpu(w))),
    };
  } finally {
    floor.close();
    await production.close();
  }
}

await runScenario(
  'floor',
  {
    ...plan,
    pools,
    payloadBytes,
    durability: 'WAL, synchronous=NORMAL + fdatasync of the WAL per commit, off the event loop (as FULL)',
    pipeRoundTripsPerCall: 5,
    rowWritesPerCall: 6,
    commitBarriersPerCall: 1,
    interleaved: 'engine and floor windows in turn',
  },
  async () => {
    const floor: Record<string, LoadFigures> = {};
    const engine: Record<string, LoadFigures> = {};
    const ratio: Record<string, Spread> = {};
    const cpuRatio: Record<string, Spread> = {};
    for (const poolSize of pools) {
      const key = `pool${poolSize}`;
      const pair = await floorAndEngine(poolSize);
      floor[key] = pair.floor;
      engine[key] = pair.engine;
      ratio[key] = pair.ratio;
      cpuRatio[key] = pair.cpuRatio;
      describe(`floor (no engine), ${poolSize} chain${poolSize === 1 ? '' : 's'} in parallel`, pair.floor);
      describe(`engine, Python S→P→O pool ${poolSize}, windows interleaved with the floor's`, pair.engine);
      console.log(`      engine / floor: ${fmtSpread(pair.ratio, '×')}; floor CPU / engine CPU per round trip ${fmt(pair.cpuRatio.median)}`);
    }
    return { floor, engine, ratio, cpuRatio };
  },
);
