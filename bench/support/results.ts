/**
 * What every scenario shares: the --quick flag, the load of the machine around the run, and the
 * JSON file of its figures in bench/results/ (git-ignored) that bench/run.ts and the docs read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, machineInfo, type MachineInfo } from './resources.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const resultsDir = join(repoRoot, 'bench', 'results');

/** A short smoke run: fewer runs, shorter windows, smaller data. */
export const quick = process.argv.includes('--quick');

export interface ScenarioResult<Figures> {
  scenario: string;
  quick: boolean;
  startedAt: string;
  durationS: number;
  /** /proc/loadavg before and after: other engineers share the machine. */
  loadBefore: number[];
  loadAfter: number[];
  machine: MachineInfo;
  /** How the scenario was set up (sizes, runs, durations), in words and numbers. */
  setup: Record<string, unknown>;
  figures: Figures;
}

/** Runs a scenario body, then writes and returns its result file. */
export async function runScenario<Figures>(scenario: string, setup: Record<string, unknown>, body: () => Promise<Figures>): Promise<ScenarioResult<Figures>> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadBefore = loadAverage();
  console.log(`\n== ${scenario}${quick ? ' (quick)' : ''}   load ${loadBefore.join(' ')}`);
  const figures = await body();
  const result: ScenarioResult<Figures> = {
    scenario,
    quick,
    startedAt,
    durationS: Math.round((performance.now() - started) / 100) / 10,
    loadBefore,
    loadAfter: loadAverage(),
    machine: machineInfo(),
    setup,
    figures,
  };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${scenario}.json`), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`   ${scenario}: ${result.durationS} s, load after ${result.loadAfter.join(' ')} → bench/results/${scenario}.json`);
  return result;
}

/** The value of `--name=value` on the command line, else `fallback`. */
export function option(name: string): string | undefined;
export function option(name: string, fallback: string): string;
export function option(name: string, fallback?: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

function numberFlag(name: string): number | undefined {
  const value = option(name);
  return value === undefined ? undefined : Number(value);
}

/** Runs of a load scenario, each a timed window, after one warm-up window; `--runs=N --window=MS` override. */
export const plan = {
  runs: numberFlag('runs') ?? (quick ? 2 : 5),
  warmupMs: quick ? 500 : 1000,
  windowMs: numberFlag('window') ?? (quick ? 1000 : 2000),
};
