/**
 * Measuring the service → process → operation chain (and the single hop) at full load: open the
 * production, warm it up, run several timed windows, and reduce them to median and spread.
 */
import { newItem } from '../../src/core/production.ts';
import type { RunningProduction } from '../../src/engine/running-production.ts';
import type { Durability } from '../../src/store/sqlite/sqlite-store.ts';
import { closedLoop, openLoop, type WindowFigures } from './load.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction, sendSync, type ChainKind } from './production.ts';
import { fmt, fmtSpread, spread, type Spread } from './stats.ts';

export interface Plan {
  runs: number;
  warmupMs: number;
  windowMs: number;
}

export interface LoadFigures {
  /** Round trips per second, one value per run. */
  perSecond: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  nodeCpuUsPerCall: Spread;
  childCpuUsPerCall: Spread;
  cpuPct: Spread;
  /** The highest resident memory seen in any run: Node alone, and Node with its Python workers. */
  peakRssMb: { node: number; total: number };
  concurrency: number;
  errors: number;
  firstError: string | null;
}

export function reduce(windows: WindowFigures[], concurrency: number): LoadFigures {
  return {
    perSecond: spread(windows.map((w) => w.perSecond)),
    p50Ms: spread(windows.map((w) => w.latency.p50Ms)),
    p99Ms: spread(windows.map((w) => w.latency.p99Ms)),
    nodeCpuUsPerCall: spread(windows.map((w) => w.nodeCpuUsPerCall)),
    childCpuUsPerCall: spread(windows.map((w) => w.childCpuUsPerCall)),
    cpuPct: spread(windows.map((w) => w.cpuPct)),
    peakRssMb: { node: Math.max(...windows.map((w) => w.peakRssMb.node)), total: Math.max(...windows.map((w) => w.peakRssMb.total)) },
    concurrency,
    errors: windows.reduce((sum, w) => sum + w.errors, 0),
    firstError: windows.find((w) => w.firstError !== null)?.firstError ?? null,
  };
}

export function describe(label: string, figures: LoadFigures): void {
  console.log(`   ${label}`);
  console.log(`      round trips/s ${fmtSpread(figures.perSecond)}`);
  console.log(`      latency p50 ${fmt(figures.p50Ms.median)} ms, p99 ${fmt(figures.p99Ms.median)} ms (medians of runs); concurrency ${figures.concurrency}`);
  console.log(
    `      CPU per round trip: node ${fmt(figures.nodeCpuUsPerCall.median)} µs + python ${fmt(figures.childCpuUsPerCall.median)} µs; machine busy ${fmt(figures.cpuPct.median)}% of 200%; peak RSS node ${fmt(figures.peakRssMb.node)} MB, with workers ${fmt(figures.peakRssMb.total)} MB`,
  );
  if (figures.errors > 0) console.log(`      ${figures.errors} errors, first: ${figures.firstError}`);
}

/** Warm-up, then `plan.runs` windows of the same load. */
export async function repeat<Figures>(plan: Plan, window: (ms: number) => Promise<Figures>): Promise<Figures[]> {
  await window(plan.warmupMs);
  const windows: Figures[] = [];
  for (let run = 0; run < plan.runs; run++) windows.push(await window(plan.windowMs));
  return windows;
}

export interface ChainOptions {
  kind: ChainKind;
  poolSize: number;
  /** Bytes of payload text in each request. */
  payloadBytes: number;
  storePath?: string;
  durability?: Durability;
  storeUrl?: string;
}

/** Callers enough to keep every job busy with the next input already waiting. */
export const concurrencyFor = (poolSize: number) => poolSize * 2;

/** Round trips through the chain at full load. */
export async function measureChain(options: ChainOptions, plan: Plan): Promise<LoadFigures> {
  const production = await openBenchProduction({
    items: chainItems(options.kind, options.poolSize),
    ...(options.storePath ? { storePath: options.storePath } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
    ...(options.storeUrl ? { storeUrl: options.storeUrl } : {}),
  });
  try {
    const payload = 'x'.repeat(options.payloadBytes);
    const call = chainCall(options.kind, production.running);
    const concurrency = concurrencyFor(options.poolSize);
    return reduce(await repeat(plan, (ms) => closedLoop((i) => call(benchRequest(i, payload)), concurrency, ms)), concurrency);
  } finally {
    await production.close();
  }
}

export interface HopFigures {
  max: LoadFigures;
  /** At half the maximum rate, open loop. */
  half: LoadFigures & { offeredPerSecond: number };
}

/**
 * One synchronous hop into a Python operation (persist the request, queue, the Python call,
 * persist the response, wake the caller): its maximum rate, then its latency at half that rate.
 */
export async function measureHop(poolSize: number, plan: Plan, durability: Durability = 'full'): Promise<HopFigures> {
  const production = await openBenchProduction({ items: [newItem('Operation', 'Bench.Operation', { poolSize })], durability });
  try {
    const call = (running: RunningProduction) => (i: number) => sendSync(running, 'Operation', benchRequest(i, 'hop'));
    const concurrency = concurrencyFor(poolSize);
    const max = reduce(await repeat(plan, (ms) => closedLoop(call(production.running), concurrency, ms)), concurrency);
    const offered = Math.max(1, Math.round(max.perSecond.median / 2));
    const half = reduce(await repeat(plan, (ms) => openLoop(call(production.running), offered, ms)), 0);
    return { max, half: { ...half, offeredPerSecond: offered } };
  } finally {
    await production.close();
  }
}

/** The chain's path latency at half its maximum rate, open loop. */
export async function measureChainAtRate(options: ChainOptions, perSecond: number, plan: Plan): Promise<LoadFigures & { offeredPerSecond: number }> {
  const production = await openBenchProduction({ items: chainItems(options.kind, options.poolSize) });
  try {
    const payload = 'x'.repeat(options.payloadBytes);
    const call = chainCall(options.kind, production.running);
    return { ...reduce(await repeat(plan, (ms) => openLoop((i) => call(benchRequest(i, payload)), perSecond, ms)), 0), offeredPerSecond: perSecond };
  } finally {
    await production.close();
  }
}
