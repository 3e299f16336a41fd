/**
 * Large bodies (issue 16): the Python S→P→O chain at pool 1 with a 100 KB and a 1 MB payload, and
 * the CPU (Node + its Python workers) each round trip costs per KB of body. The body crosses five
 * pipes (into the service, the service's send, into the process, the process's send, into the
 * operation) and is stored twice (the two requests); the answer is small. CPU time, not wall time,
 * is the figure to compare on a shared machine.
 * Run: node --import tsx bench/scenarios/bodies.ts [--quick] [--runs=N] [--window=MS]
 * Ends with `bar: body_cpu_us_per_kb=<µs of CPU per KB of body, 1 MB round trip>`.
 */
import { describe, measureChain, type LoadFigures } from '../support/chain.ts';
import { plan, runScenario } from '../support/results.ts';
import { fmt } from '../support/stats.ts';

const poolSize = 1;
const sizes = [100 * 1024, 1024 * 1024];
/** A 1 MB round trip takes tens of milliseconds: longer windows than the small-message scenarios. */
const bodyPlan = { ...plan, windowMs: plan.windowMs * 4 };

function perKb(figures: LoadFigures, bytes: number): number {
  return (figures.nodeCpuUsPerCall.median + figures.childCpuUsPerCall.median) / (bytes / 1024);
}

const result = await runScenario('bodies', { ...bodyPlan, poolSize, sizes, components: 'python' }, async () => {
  const figures: Record<string, LoadFigures & { cpuUsPerKb: number }> = {};
  for (const bytes of sizes) {
    const label = bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024}MB` : `${bytes / 1024}KB`;
    const load = await measureChain({ kind: 'python', poolSize, payloadBytes: bytes }, bodyPlan);
    describe(`bodies of ${label}, Python chain pool ${poolSize}`, load);
    figures[label] = { ...load, cpuUsPerKb: perKb(load, bytes) };
    console.log(`      CPU per KB of body: ${fmt(figures[label].cpuUsPerKb)} µs`);
  }
  return figures;
});
console.log(`bar: body_cpu_us_per_kb=${fmt(result.figures['1MB']!.cpuUsPerKb)}`);
