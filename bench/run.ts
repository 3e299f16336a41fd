/**
 * `npm run bench`: every scenario, each in its own Node process (so one scenario's memory and JIT
 * state do not colour the next), then the bar of issue 7 checked against the figures. Asserts
 * nothing: a bar not met is a finding, not a failure; a scenario that crashes is.
 *   node --import tsx bench/run.ts [--quick] [--only=production,floor] [--runs=N] [--window=MS] [--long=S]
 * Figures: bench/results/<scenario>.json; the bar table: bench/results/summary.md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { barsMarkdown, checkBars } from './support/bars.ts';
import { pythonPathBarLine } from './support/python-path-bar.ts';
import { loadAverage, machineInfo } from './support/resources.ts';
import { quick, repoRoot, resultsDir } from './support/results.ts';

const scenarios = ['production', 'engine-overhead', 'floor', 'api', 'cli', 'startup', 'dtl', 'growth', 'bodies', 'cluster', 'tracing', 'retention', 'search'];
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice(7)
  .split(',');
const unknown = only?.filter((name) => !scenarios.includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown scenario ${unknown.join(', ')}; known: ${scenarios.join(', ')}`);
  process.exit(2);
}
const passOn = process.argv.slice(2).filter((arg) => arg === '--quick' || /^--(runs|window|long)=/.test(arg));

function runScenarioProcess(name: string): Promise<{ name: string; exitCode: number | null; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', 'scenarios', `${name}.ts`), ...passOn], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.once('exit', (exitCode) => resolve({ name, exitCode, seconds: (performance.now() - started) / 1000 })));
}

const machine = machineInfo();
const started = performance.now();
const startedAt = new Date().toISOString();
const loadBefore = loadAverage();
console.log(
  `Conveyor benchmarks${quick ? ' (quick)' : ''}: ${machine.nproc} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.python}; load ${loadBefore.join(' ')}`,
);
const runs = [];
for (const name of only ?? scenarios) runs.push(await runScenarioProcess(name));
const totalSeconds = (performance.now() - started) / 1000;

const checks = checkBars();
const table = barsMarkdown(checks);
const crashed = runs.filter((run) => run.exitCode !== 0);
const summary = { startedAt, quick, totalSeconds, loadBefore, loadAfter: loadAverage(), machine, scenarios: runs, bars: checks };
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(join(resultsDir, 'summary.md'), `${table}\n`);
console.log(`\n${table}\n`);
console.log(`${runs.map((r) => `${r.name} ${r.seconds.toFixed(0)} s${r.exitCode === 0 ? '' : ` (exit ${r.exitCode})`}`).join(', ')}`);
console.log(`Total ${totalSeconds.toFixed(0)} s; load ${summary.loadAfter.join(' ')}. Figures in bench/results/.`);
// Issue 16's bar line closes the output (bench/support/python-path-bar.ts).
const pythonBar = pythonPathBarLine(runs.filter((run) => run.exitCode === 0).map((run) => run.name));
if (pythonBar) console.log(pythonBar);
if (crashed.length > 0) {
  console.error(`Scenario${crashed.length === 1 ? '' : 's'} that did not finish: ${crashed.map((r) => r.name).join(', ')}`);
  process.exitCode = 1;
}
