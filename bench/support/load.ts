/**
 * Load generators. Closed loop: N callers, each sending its next call when the previous one
 * answered — the most the system sustains at that concurrency. Open loop: calls arrive on a fixed
 * schedule whatever the answers do, and latency counts from the scheduled arrival, so a stall
 * shows up in the percentiles instead of silently lowering the load (no coordinated omission).
 */
import { cpuSince, mb, readCpu, RssSampler } from './resources.ts';
import { latencies, type LatencySummary } from './stats.ts';

export type Call = (sequence: number) => Promise<unknown>;

export interface WindowFigures {
  calls: number;
  errors: number;
  firstError: string | null;
  elapsedS: number;
  perSecond: number;
  latency: LatencySummary;
  /** CPU time per call, Node process and its children (Python workers), in microseconds. */
  nodeCpuUsPerCall: number;
  childCpuUsPerCall: number;
  /** Share of the machine's time the run kept busy (both cores = 200%). */
  cpuPct: number;
  peakRssMb: { node: number; total: number };
}

interface Tally {
  samples: number[];
  errors: number;
  firstError: string | null;
}

function failed(tally: Tally, error: unknown): void {
  tally.errors++;
  tally.firstError ??= error instanceof Error ? error.message : String(error);
}

async function measured(body: (tally: Tally) => Promise<void>): Promise<WindowFigures> {
  const tally: Tally = { samples: [], errors: 0, firstError: null };
  const rss = new RssSampler();
  const cpu = readCpu();
  const started = performance.now();
  await body(tally);
  const elapsedMs = performance.now() - started;
  const spent = cpuSince(cpu);
  rss.stop();
  const calls = tally.samples.length;
  return {
    calls,
    errors: tally.errors,
    firstError: tally.firstError,
    elapsedS: elapsedMs / 1000,
    perSecond: (calls / elapsedMs) * 1000,
    latency: latencies(tally.samples),
    nodeCpuUsPerCall: calls ? (spent.nodeMs * 1000) / calls : 0,
    childCpuUsPerCall: calls ? (spent.childrenMs * 1000) / calls : 0,
    cpuPct: ((spent.nodeMs + spent.childrenMs) / elapsedMs) * 100,
    peakRssMb: { node: mb(rss.peakNodeBytes), total: mb(rss.peakTotalBytes) },
  };
}

/** `concurrency` callers back to back for `durationMs`. */
export function closedLoop(call: Call, concurrency: number, durationMs: number): Promise<WindowFigures> {
  return measured(async (tally) => {
    const deadline = performance.now() + durationMs;
    let sequence = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          try {
            await call(sequence++);
            tally.samples.push(performance.now() - started);
          } catch (error) {
            failed(tally, error);
          }
        }
      }),
    );
  });
}

/** Calls arriving at `perSecond` for `durationMs`, each timed from its scheduled arrival. */
export function openLoop(call: Call, perSecond: number, durationMs: number): Promise<WindowFigures> {
  return measured(async (tally) => {
    const started = performance.now();
    const total = Math.max(1, Math.floor((perSecond * durationMs) / 1000));
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) * perSecond) / 1000) + 1);
      for (; sent < due; sent++) {
        const scheduled = started + (sent * 1000) / perSecond;
        const done: Promise<void> = call(sent).then(
          () => void tally.samples.push(performance.now() - scheduled),
          (error) => failed(tally, error),
        );
        inFlight.add(done);
        void done.finally(() => inFlight.delete(done));
      }
      await untilDue(started + (sent * 1000) / perSecond);
    }
    await Promise.all(inFlight);
  });
}

/**
 * Yields to the event loop until `due` (a performance.now() time). Node's timers round up to whole
 * milliseconds, so an arrival timed by `setTimeout` alone leaves up to 1 ms late, and that lateness
 * counts in its latency: timers bring it within 2 ms of its time, then `setImmediate` turns (each
 * one lets pending I/O run) bring it to the moment. The turns cost CPU, charged to Node's figure.
 */
async function untilDue(due: number): Promise<void> {
  for (;;) {
    const wait = due - performance.now();
    if (wait <= 0) return;
    if (wait > 2) await new Promise((resolve) => setTimeout(resolve, Math.floor(wait) - 1));
    else await new Promise((resolve) => setImmediate(resolve));
  }
}
