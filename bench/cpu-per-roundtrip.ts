/**
 * CPU per round trip of the Python S→P→O chain and of the floor, for judging a change on a shared
 * machine (wall-clock throughput is noise there; CPU time per round trip much less so). Runs a fixed
 * number of round trips per window at each pool size and prints Node and Python CPU per round trip.
 *   node --import tsx bench/cpu-per-roundtrip.ts [--pools=1,2] [--calls=3000] [--windows=3] [--payload=64]
 *   [--sides=engine,floor,colocated] [--durability=full|normal]
 * `colocated` is a floor for a design the engine does not have (bench/support/colocated-floor.ts).
 * Profile it with `node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/cpu-per-roundtrip.ts --pools=2`.
 */
import { concurrencyFor } from './support/chain.ts';
import { openColocatedFloor } from './support/colocated-floor.ts';
import { openFloor } from './support/floor-chain.ts';
import { closedLoop } from './support/load.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction } from './support/production.ts';
import { option } from './support/results.ts';
import { fmt } from './support/stats.ts';

const pools = option('pools', '1,2').split(',').map(Number);
const windowMs = Number(option('window', '2000'));
const windows = Number(option('windows', '3'));
const payloadBytes = Number(option('payload', '64'));
const sides = option('sides', 'engine,floor').split(',');
const durability = option('durability', 'full') === 'normal' ? 'normal' : 'full';

for (const poolSize of pools) {
  const concurrency = concurrencyFor(poolSize);
  const payload = 'x'.repeat(payloadBytes);
  const engine = sides.includes('engine') ? await openBenchProduction({ items: chainItems('python', poolSize), durability }) : null;
  const floor = sides.includes('floor') ? openFloor(poolSize, payloadBytes) : null;
  const colocated = sides.includes('colocated') ? openColocatedFloor(poolSize, payloadBytes) : null;
  try {
    const runs: Record<string, (ms: number) => ReturnType<typeof closedLoop>> = {};
    if (engine) {
      const chain = chainCall('python', engine.running);
      runs.engine = (ms) => closedLoop((i) => chain(benchRequest(i, payload)), concurrency, ms);
    }
    if (floor) runs.floor = (ms) => closedLoop((i) => floor.call(i), concurrency, ms);
    if (colocated) runs.colocated = (ms) => closedLoop((i) => colocated.call(i), concurrency, ms);
    for (const run of Object.values(runs)) await run(500);
    for (let window = 0; window < windows; window++) {
      for (const [side, run] of Object.entries(runs)) {
        const figures = await run(windowMs);
        console.log(
          `pool ${poolSize} ${side.padEnd(9)} ${fmt(figures.perSecond).padStart(6)}/s  node ${fmt(figures.nodeCpuUsPerCall).padStart(6)} µs + python ${fmt(figures.childCpuUsPerCall).padStart(6)} µs per round trip${figures.errors ? `  ${figures.errors} errors: ${figures.firstError}` : ''}`,
        );
      }
    }
  } finally {
    floor?.close();
    colocated?.close();
    await engine?.close();
  }
}
