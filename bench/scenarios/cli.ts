/**
 * Scenario 5, the CLI: wall time, process start to exit, of `cli -v`, a remote `cli -x` (HTTP +
 * Basic auth to a real server on 127.0.0.1) and a local `cli -l` (the home's Unix socket), next to
 * bare `node -e 0`. Runs bench/cli.ts, which owns the measurement, and keeps its figures.
 * Run: node --import tsx bench/scenarios/cli.ts [--quick]
 */
import { runScript } from '../support/external.ts';
import { quick, runScenario } from '../support/results.ts';

const runs = quick ? 5 : 15;

await runScenario('cli', { runs, script: 'bench/cli.ts' }, async () => {
  const run = await runScript('cli.ts', [String(runs)], 180_000);
  const commands: Record<string, { medianMs: number; minMs: number; maxMs: number; runs: number }> = {};
  for (const line of run.lines) {
    const match = /^(\S.*?)\s+(\d+) runs\s+median\s+(\d+) ms\s+min\s+(\d+) ms\s+max\s+(\d+) ms/.exec(line);
    if (match) commands[match[1]!.trim()] = { medianMs: Number(match[3]), minMs: Number(match[4]), maxMs: Number(match[5]), runs: Number(match[2]) };
  }
  return { exitCode: run.exitCode, timedOut: run.timedOut, commands, output: run.lines };
});
