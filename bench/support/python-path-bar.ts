/**
 * The closing line of issue 16's Python path bar: `bar: python_rt_per_s=<best over pools>
 * engine_floor_min=<lowest over pools>`, from the result files of the scenarios this run measured
 * (a file left by an earlier run is not read). Round trips per second are the engine's Python
 * S→P→O chain, the best pool of the production scenario and of the floor scenario's engine
 * windows; the ratio is the floor scenario's engine ÷ floor per pool (median of its window pairs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir } from './results.ts';

interface PerPool {
  [pool: string]: { perSecond?: { median: number }; median?: number };
}

function figures(scenario: string, measured: readonly string[]): Record<string, PerPool> | null {
  const path = join(resultsDir, `${scenario}.json`);
  if (!measured.includes(scenario) || !existsSync(path)) return null;
  return (JSON.parse(readFileSync(path, 'utf8')) as { figures: Record<string, PerPool> }).figures;
}

const medians = (pools: PerPool | undefined, pick: (entry: PerPool[string]) => number | undefined): number[] =>
  Object.values(pools ?? {})
    .map(pick)
    .filter((value): value is number => typeof value === 'number');

/** The line, or null when neither the production nor the floor scenario ran. */
export function pythonPathBarLine(measured: readonly string[]): string | null {
  const production = figures('production', measured);
  const floor = figures('floor', measured);
  if (!production && !floor) return null;
  const roundTrips = [...medians(production?.chain, (f) => f.perSecond?.median), ...medians(floor?.engine, (f) => f.perSecond?.median)];
  const ratios = medians(floor?.ratio, (f) => f.median);
  const best = roundTrips.length > 0 ? String(Math.round(Math.max(...roundTrips))) : 'n/a';
  const lowest = ratios.length > 0 ? Math.min(...ratios).toFixed(2) : 'n/a';
  return `bar: python_rt_per_s=${best} engine_floor_min=${lowest}`;
}
