/**
 * Scenario 6, DTL: runs per second of compiled and interpreted transforms. Runs bench/dtl.ts (the
 * DTL part's own measurement) when it exists, and keeps its figures.
 * Run: node --import tsx bench/scenarios/dtl.ts [--quick]
 */
import { runScript, scriptExists } from '../support/external.ts';
import { quick, runScenario } from '../support/results.ts';

const runs = quick ? 2 : 5;
const secondsPerRun = quick ? 0.3 : 0.5;

await runScenario('dtl', { runs, secondsPerRun, script: 'bench/dtl.ts' }, async () => {
  if (!scriptExists('dtl.ts')) {
    console.log('   bench/dtl.ts does not exist yet: nothing to run');
    return { present: false };
  }
  const run = await runScript('dtl.ts', [String(runs), String(secondsPerRun)], 180_000);
  const transforms: Record<string, { medianPerSecond: number; minPerSecond: number; maxPerSecond: number; spreadPct: number }> = {};
  for (const line of run.lines) {
    const match = /^(\S.*?)\s+median\s+(\d+) runs\/s\s+min\s+(\d+)\s+max\s+(\d+)\s+spread\s+([\d.]+)%/.exec(line);
    if (match)
      transforms[match[1]!.trim()] = {
        medianPerSecond: Number(match[2]),
        minPerSecond: Number(match[3]),
        maxPerSecond: Number(match[4]),
        spreadPct: Number(match[5]),
      };
  }
  return { present: true, exitCode: run.exitCode, timedOut: run.timedOut, transforms, output: run.lines };
});
