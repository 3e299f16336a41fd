/**
 * Round trip of one synchronous call into a Python operation. Prints median and p99; asserts nothing.
 * Run: node --import tsx bench/python-roundtrip.ts [calls]
 *
 * Two levels:
 *  - bridge: ComponentInstance.onMessage on a live worker (framing, JSON, dispatch, (de)serialisation);
 *  - engine: a test call through the engine with a real SQLite store (request and response persisted,
 *    queued, delivered, and the same worker round trip), restart disabled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonComponentFactory } from '../src/bridge/index.ts';
import { newItem, newProduction } from '../src/core/production.ts';
import { Engine } from '../src/engine/engine.ts';
import { openStore } from '../src/store/open-store.ts';
import { componentsDir, json, TestCall, TestContext } from '../test/fixtures/python/harness.ts';

const calls = Number(process.argv[2] ?? 2000);
const warmup = Math.min(200, Math.floor(calls / 10));

function report(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const total = samples.reduce((sum, v) => sum + v, 0);
  console.log(
    `${label.padEnd(8)} ${String(samples.length).padStart(6)} calls  median ${(at(0.5) * 1000).toFixed(0).padStart(6)} µs  p99 ${(at(0.99) * 1000).toFixed(0).padStart(6)} µs  max ${at(1).toFixed(2)} ms  ${(samples.length / (total / 1000)).toFixed(0)} calls/s`,
  );
}

async function measure(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

async function bridgeLevel(): Promise<void> {
  const echo = pythonComponentFactory({ module: 'bo', className: 'EchoOperation', classpaths: [componentsDir] }).create();
  await echo.init(new TestContext('Echo', 'operation'));
  const request = json('message.SimpleMessage', { integer: 1, string: 'bench' });
  const call = new TestCall({});
  report('bridge', await measure(() => echo.onMessage(request, call)));
  await echo.stop(2000);
}

async function engineLevel(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-bench-'));
  const store = await openStore({ sqlitePath: join(dir, 'conveyor.db') });
  const engine = await Engine.open(store, { graceMs: 2000 });
  await store.classes.put('USER', {
    name: 'Bench.Echo',
    kind: 'operation',
    runtime: 'python',
    module: 'bo',
    className: 'EchoOperation',
    classpaths: [componentsDir],
    settings: [],
    adapterType: null,
    updatedAt: Date.now(),
  });
  const user = await engine.namespace('USER');
  await user.putDefinition(newProduction('Bench.Production', [newItem('Echo', 'Bench.Echo')]));
  await user.start('Bench.Production');
  const request = { target: 'Echo', classname: 'message.SimpleMessage', body: { integer: 1, string: 'bench' }, restart: false };
  report('engine', await measure(() => user.test(request)));
  await user.stop();
  await engine.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
}

console.log(`One synchronous call into a Python operation (${calls} calls after ${warmup} warm-up), durability full:`);
await bridgeLevel();
await engineLevel();
