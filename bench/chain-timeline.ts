/**
 * Where one Python S→P→O round trip's time goes, step by step: round trips one at a time at pool
 * 1, every frame crossing a worker's pipe timed (src/bridge/python-worker.ts publishes them on a
 * diagnostics channel), and per step the median time since the step before. A step ending with a
 * frame written to a worker is the engine's (from the frame it reacted to, including its own wake-up);
 * one ending with a frame read from a worker is that worker's (the pipe, its wake-up, its Python).
 * The round trip is sequential, so the steps add up to its latency.
 *   node --import tsx bench/chain-timeline.ts [--rounds=500] [--durability=normal|full] [--payload=64]
 */
import { subscribe } from 'node:diagnostics_channel';
import { workerFrames, type WorkerFrameEvent } from '../src/bridge/python-worker.ts';
import { benchRequest, chainCall, chainItems, openBenchProduction } from './support/production.ts';
import { option } from './support/results.ts';
import { ascending, fmt, quantile } from './support/stats.ts';

const rounds = Number(option('rounds', '500'));
const durability = option('durability', 'normal') === 'full' ? 'full' : 'normal';
const payload = 'x'.repeat(Number(option('payload', '64')));

const production = await openBenchProduction({ items: chainItems('python', 1), durability });
const call = chainCall('python', production.running);
let events: WorkerFrameEvent[] = [];
subscribe(workerFrames.name, (event) => void events.push(event as WorkerFrameEvent));
try {
  for (let i = 0; i < 300; i++) await call(benchRequest(i, payload));
  // The chain's workers in the order a round trip first invokes them.
  const roles = new Map<number, string>();
  const steps = new Map<string, { engine: boolean; ms: number[] }>();
  const totals: number[] = [];
  for (let round = 0; round < rounds; round++) {
    events = [];
    const started = performance.now();
    await call(benchRequest(round, payload));
    const ended = performance.now();
    let previous = started;
    const record = (label: string, engine: boolean, at: number): void => {
      const step = steps.get(label) ?? { engine, ms: [] };
      step.ms.push(at - previous);
      steps.set(label, step);
      previous = at;
    };
    events.forEach((event, index) => {
      if (!roles.has(event.pid)) roles.set(event.pid, ['service', 'process', 'operation'][roles.size] ?? `worker ${event.pid}`);
      const role = roles.get(event.pid)!;
      const label = `${index + 1}. ${event.direction === 'to-worker' ? `engine → ${role}` : `${role} → engine`}: ${event.type}`;
      record(label, event.direction === 'to-worker', event.at);
    });
    record(`${events.length + 1}. engine → caller`, true, ended);
    totals.push(ended - started);
  }
  const median = (values: number[]): number => quantile(ascending(values), 0.5);
  const p90 = (values: number[]): number => quantile(ascending(values), 0.9);
  console.log(`${rounds} round trips one at a time, pool 1, durability ${durability}: median ${fmt(median(totals) * 1000)} µs`);
  let engine = 0;
  let workers = 0;
  for (const [label, step] of steps) {
    if (step.ms.length !== rounds) continue; // a step only some round trips had (never on this chain)
    const us = median(step.ms) * 1000;
    if (step.engine) engine += us;
    else workers += us;
    console.log(`  ${label.padEnd(34)} median ${fmt(us).padStart(6)} µs   p90 ${fmt(p90(step.ms) * 1000).padStart(6)} µs`);
  }
  console.log(`sum of medians: engine ${fmt(engine)} µs, workers ${fmt(workers)} µs`);
} finally {
  await production.close();
}
