/**
 * Scenario: the cost of tracing (issue 19). The service → process → operation chain of scenarios 1
 * and 2 (Python, then built-in components; pool size 1, durability normal so no fsync blurs it),
 * measured with tracing off, then on — every span exported over OTLP/HTTP protobuf, batched as
 * OTEL_BSP_* defaults say, to a receiver in another process (so the receiving is not counted here,
 * the encoding and sending are). The figure that matters on a shared machine is CPU per round trip;
 * round trips per second are printed too.
 * Run: node --import tsx bench/scenarios/tracing.ts [--quick]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, measureChain, type LoadFigures } from '../support/chain.ts';
import { plan, quick, runScenario } from '../support/results.ts';
import type { StoredMessage } from '../../src/core/message.ts';
import { MessageCall } from '../../src/engine/message-call.ts';
import type { MessageRouter } from '../../src/engine/message-router.ts';
import { activeTracer, installTracer, type HopItem } from '../../src/engine/tracing/message-tracer.ts';
import { tracerFromConfig } from '../../src/engine/tracing/otel-tracer.ts';

const payloadBytes = 64;
const kinds = ['python', 'builtin'] as const;

/** An OTLP/HTTP receiver in its own process that answers every export with 200 and counts the bytes. */
async function startReceiver(): Promise<{ endpoint: string; stop: () => Promise<number> }> {
  const script = `
    const http = require('node:http');
    let bytes = 0;
    const server = http.createServer((req, res) => { req.on('data', (c) => (bytes += c.length)); req.on('end', () => res.end()); });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    process.on('SIGTERM', () => { console.log(bytes); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Never outlives the scenario, even one that fails.
  process.once('exit', () => child.kill());
  const lines: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => lines.push(...text.trim().split('\n')));
  while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    endpoint: `http://127.0.0.1:${lines[0]}`,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
      return Number(lines[1] ?? 0);
    },
  };
}

const hopItem: HopItem = { namespace: 'USER', name: 'Op', kind: 'operation', classname: 'Bench.Op' };
const message = {
  id: 1,
  sessionId: 1,
  source: 'Proc',
  body: { classname: 'Ens.StringRequest', encoding: 'native', data: '{}' },
  traceParent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
} as StoredMessage;

/**
 * CPU per hop of the engine's tracing hooks alone, without any chain around them: what the hot path
 * does per message (start the hop, hand its context to the call, end it), tracing off and on. On,
 * the spans are exported after each batch of 512 (the exporter's batch size), and that CPU is
 * counted apart.
 */
async function hookCpu(hops: number, flush: (() => Promise<void>) | null): Promise<{ hookNs: number; exportNs: number }> {
  const call = new MessageCall(null as unknown as MessageRouter, 'Op', message);
  let hookUs = 0;
  let exportUs = 0;
  for (let done = 0; done < hops; done += 512) {
    const started = process.cpuUsage();
    for (let i = 0; i < 512; i++) {
      const hop = activeTracer()?.startHop(hopItem, message) ?? null;
      hop?.enter(call);
      hop?.end();
    }
    const used = process.cpuUsage(started);
    hookUs += used.user + used.system;
    if (flush === null) continue;
    const flushStarted = process.cpuUsage();
    await flush();
    const flushed = process.cpuUsage(flushStarted);
    exportUs += flushed.user + flushed.system;
  }
  const measured = Math.ceil(hops / 512) * 512;
  return { hookNs: (hookUs * 1000) / measured, exportNs: (exportUs * 1000) / measured };
}

await runScenario(
  'tracing',
  { ...plan, poolSize: 1, payloadBytes, durability: 'normal', exporter: 'otlp http/protobuf, batched, to another process' },
  async () => {
    const receiver = await startReceiver();
    process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] = `${receiver.endpoint}/v1/traces`;
    const figures: Record<string, { off: LoadFigures; on: LoadFigures; extraNodeCpuUs: number }> = {};
    const hops = quick ? 20_480 : 102_400;
    await hookCpu(hops, null); // warm-up: the JIT compiles the loop before it is measured
    const off = await hookCpu(hops, null);
    const hookTracer = tracerFromConfig({ exporters: ['otlp'], protocol: 'http/protobuf' });
    installTracer(hookTracer);
    const on = await hookCpu(hops, () => hookTracer.forceFlush());
    installTracer(null);
    await hookTracer.shutdown();
    console.log(
      `   hooks alone: ${off.hookNs.toFixed(0)} ns per hop off; on ${(on.hookNs / 1000).toFixed(1)} µs per hop span + ${(on.exportNs / 1000).toFixed(1)} µs to encode and send it over OTLP`,
    );
    try {
      for (const kind of kinds) {
        const off = await measureChain({ kind, poolSize: 1, payloadBytes, durability: 'normal' }, plan);
        describe(`${kind} S→P→O, tracing off`, off);
        const tracer = tracerFromConfig({ exporters: ['otlp'], protocol: 'http/protobuf' });
        installTracer(tracer);
        let on: LoadFigures;
        try {
          on = await measureChain({ kind, poolSize: 1, payloadBytes, durability: 'normal' }, plan);
        } finally {
          installTracer(null);
          await tracer.shutdown();
        }
        describe(`${kind} S→P→O, tracing on (OTLP export)`, on);
        const extraNodeCpuUs = on.nodeCpuUsPerCall.median - off.nodeCpuUsPerCall.median;
        console.log(`   tracing costs ${extraNodeCpuUs.toFixed(0)} µs of Node CPU per round trip (${kind}: 4 spans per round trip)`);
        figures[kind] = { off, on, extraNodeCpuUs };
      }
    } finally {
      const bytes = await receiver.stop();
      console.log(`   the receiver took ${(bytes / 1024).toFixed(0)} KiB of OTLP${quick ? ' (quick)' : ''}`);
    }
    return { hooks: { hops, offNsPerHop: off.hookNs, onNsPerHop: on.hookNs, exportNsPerHop: on.exportNs }, chain: figures };
  },
);
