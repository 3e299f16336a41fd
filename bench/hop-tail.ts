/**
 * Where the tail of one sync hop comes from: sends into a Python operation at a fixed rate (open
 * loop) and prints the latency percentiles and every arrival slower than `--slow` ms, with the event
 * loop's delay monitor and the WAL rewinds that coincided with it.
 *   node --import tsx bench/hop-tail.ts [--rate=800] [--seconds=5] [--pool=1] [--durability=normal] [--slow=2] [--timers]
 * By default arrivals leave on time, as in bench/support/load.ts: timers to within 2 ms, then
 * `setImmediate` turns, which keep the main thread busy and take a core from the workers on this
 * two-core machine. `--timers` waits with timers only and counts each hop from when it left (the
 * engine's own latency, without the generator's lateness or its spinning). `--bare` sends the same
 * arrivals to a bare python3 worker over a pipe instead (the floor's worker: no engine, no store),
 * the least a hop costs on this machine. At pool 1 it also splits each hop into its three phases, from
 * the frames the worker's pipe carried (python-worker.ts publishes them): the engine before the
 * worker (store, queue, job, invoke frame written), the worker (its pipe, wake-up and Python), and the
 * engine after it (the response's commit and the caller's wake-up); and says which phase the slow
 * hops spent their time in.
 */
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { workerFrames, type WorkerFrameEvent } from '../src/bridge/python-worker.ts';
import { newItem } from '../src/core/production.ts';
import { LineWorker } from './support/floor-chain.ts';
import { benchRequest, openBenchProduction, sendSync } from './support/production.ts';
import { option } from './support/results.ts';

const rate = Number(option('rate', '800'));
const seconds = Number(option('seconds', '5'));
const poolSize = Number(option('pool', '1'));
const durability = option('durability', 'normal') === 'full' ? 'full' : 'normal';
const slowMs = Number(option('slow', '2'));
const timersOnly = process.argv.includes('--timers');
const bare = process.argv.includes('--bare') ? new LineWorker() : null;

const production = bare ? null : await openBenchProduction({ items: [newItem('Operation', 'Bench.Operation', { poolSize })], durability });
try {
  const call = (i: number): Promise<unknown> =>
    bare ? bare.call('operation', { sequence: i, payload: 'hop' }) : sendSync(production!.running, 'Operation', benchRequest(i, 'hop'));
  for (let i = 0; i < 500; i++) await call(i);
  // The frames of the measured hops, in order: at pool 1 the n-th invoke and result are the n-th hop's.
  const invokes: number[] = [];
  const results: number[] = [];
  const sentAt: number[] = [];
  const doneAt: number[] = [];
  let recording = false;
  if (!bare && poolSize === 1) {
    subscribe(workerFrames.name, (message) => {
      const event = message as WorkerFrameEvent;
      if (!recording) return;
      if (event.type === 'invoke') invokes.push(event.at);
      else if (event.type === 'result') results.push(event.at);
    });
  }
  recording = true;
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const started = performance.now();
  const total = Math.floor(rate * seconds);
  const latencies: Array<{ at: number; ms: number }> = [];
  const inFlight: Array<Promise<void>> = [];
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const scheduled = timersOnly ? performance.now() : started + (sent * 1000) / rate;
      const index = sent;
      sentAt[index] = performance.now();
      inFlight.push(
        call(sent).then(() => {
          doneAt[index] = performance.now();
          latencies.push({ at: scheduled - started, ms: doneAt[index] - scheduled });
        }),
      );
    }
    const wait = started + (sent * 1000) / rate - performance.now();
    if (timersOnly) await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.floor(wait))));
    else if (wait > 2) await new Promise((resolve) => setTimeout(resolve, Math.floor(wait) - 1));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(inFlight);
  recording = false;
  loopDelay.disable();
  const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
  const at = (q: number): string => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  console.log(
    `${latencies.length} hops at ${rate}/s, ${bare ? 'bare python3 worker' : `pool ${poolSize}, durability ${durability}`}: p50 ${at(0.5)} p90 ${at(0.9)} p99 ${at(0.99)} p99.9 ${at(0.999)} max ${at(1 - 1e-9)} ms`,
  );
  console.log(
    `event loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(2)} p99 ${(loopDelay.percentile(99) / 1e6).toFixed(2)} max ${(loopDelay.max / 1e6).toFixed(2)} ms`,
  );
  // Slow arrivals close together are one stall: its start, length, how many it held up and the worst.
  const stalls: Array<{ from: number; to: number; count: number; worst: number }> = [];
  for (const { at: when, ms } of latencies.sort((a, b) => a.at - b.at)) {
    if (ms < slowMs) continue;
    const last = stalls.at(-1);
    if (last !== undefined && when - last.to <= 20) {
      last.to = when;
      last.count++;
      last.worst = Math.max(last.worst, ms);
    } else stalls.push({ from: when, to: when, count: 1, worst: ms });
  }
  if (invokes.length === sentAt.length && results.length === sentAt.length) printPhases(sentAt, invokes, results, doneAt, slowMs);
  console.log(`${stalls.length} stalls (arrivals slower than ${slowMs} ms, 20 ms apart at most):`);
  for (const stall of stalls)
    console.log(`  t=${stall.from.toFixed(0)} ms for ${(stall.to - stall.from).toFixed(0)} ms: ${stall.count} arrivals, worst ${stall.worst.toFixed(2)} ms`);
} finally {
  bare?.stop();
  await production?.close();
}

/** The median of each phase over all hops and over the slow ones, and in how many slow hops each phase was the longest. */
function printPhases(sent: number[], invoked: number[], answered: number[], done: number[], slowMs: number): void {
  const names = ['engine before the worker', 'worker', 'engine after the worker'] as const;
  const phases = sent.map((at, i) => [invoked[i]! - at, answered[i]! - invoked[i]!, done[i]! - answered[i]!]);
  const slow = phases.filter((p) => p[0]! + p[1]! + p[2]! >= slowMs);
  const median = (values: number[]): string => (values.length ? values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(2) : '-');
  console.log(`phases (median of all ${phases.length} / of the ${slow.length} hops over ${slowMs} ms, longest phase in how many slow hops):`);
  names.forEach((name, k) => {
    const longest = slow.filter((p) => p.indexOf(Math.max(...p)) === k).length;
    console.log(`  ${name}: ${median(phases.map((p) => p[k]!))} / ${median(slow.map((p) => p[k]!))} ms, longest in ${longest}`);
  });
}
