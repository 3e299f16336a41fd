/** Summaries of repeated measurements: the median of the runs and how far the runs spread. */

/** The value at quantile q (0..1) of an ascending array (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, in percent: how much the runs disagreed. */
  spreadPct: number;
  runs: number[];
}

export function spread(runs: readonly number[]): Spread {
  const sorted = ascending(runs);
  const median = quantile(sorted, 0.5);
  const min = sorted[0] ?? Number.NaN;
  const max = sorted[sorted.length - 1] ?? Number.NaN;
  return { median, min, max, spreadPct: median === 0 ? 0 : ((max - min) / median) * 100, runs: [...runs] };
}

/** Latency samples (ms) of one run, reduced to what the report shows. */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function latencies(samplesMs: readonly number[]): LatencySummary {
  const sorted = ascending(samplesMs);
  return { count: sorted.length, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? Number.NaN };
}

/** A number for a console line: 3 significant digits, thousands separated. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 10 ** digits) return Math.round(value).toLocaleString('en');
  return Number(value.toPrecision(digits)).toLocaleString('en', { maximumFractionDigits: 3 });
}

export function fmtSpread(s: Spread, unit = ''): string {
  return `${fmt(s.median)}${unit} (min ${fmt(s.min)}, max ${fmt(s.max)}, spread ${s.spreadPct.toFixed(0)}%, ${s.runs.length} runs)`;
}
