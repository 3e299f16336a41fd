/**
 * What the trace tests share: an in-memory exporter installed as the process's tracer around each
 * test, span look-ups, an engine with the tracing fixture migrated, and the stored-context check.
 */
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, expect } from 'vitest';
import type { Store } from '../../store/store.ts';
import { eventually } from '../../../test/support/temp-dir.ts';
import { Engine, type EngineOptions } from '../engine.ts';
import type { NamespaceOperations } from '../namespace-operations.ts';
import { installTracer } from './message-tracer.ts';
import { tracerWith, type OtelMessageTracer } from './otel-tracer.ts';
import { formatTraceParent } from './traceparent.ts';

const settings = fileURLToPath(new URL('../../../test/fixtures/tracing/settings.py', import.meta.url));

let exporter: InMemorySpanExporter;
let tracer: OtelMessageTracer;

/** Call at the top of a test file: every test runs with a fresh in-memory exporter. */
export function traceEachTest(): void {
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    tracer = tracerWith([new SimpleSpanProcessor(exporter)]);
    installTracer(tracer);
  });
  afterEach(async () => {
    installTracer(null);
    await tracer.shutdown();
  });
}

export const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
export const named = (name: string): ReadableSpan[] => spans().filter((span) => span.name === name);
export const only = (name: string): ReadableSpan => {
  const found = named(name);
  expect(
    found.map((span) => span.name),
    `one span named ${name}`,
  ).toEqual([name]);
  return found[0]!;
};
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

export async function openEngine(store: Store, options: EngineOptions = {}): Promise<{ engine: Engine; user: NamespaceOperations }> {
  const engine = await Engine.open(store, { graceMs: 2000, drainTimeoutMs: 2000, ...options });
  const user = await engine.namespace('USER');
  await user.migrate(settings);
  return { engine, user };
}

/**
 * A request stored with a traceparent — as another node, or this one before a restart, sent it —
 * is handled by a hop whose span is a child of that traceparent's span, in the same trace.
 */
export async function expectStoredContextContinued(store: Store, user: NamespaceOperations): Promise<void> {
  const sender = { traceId: 'aa'.repeat(16), spanId: 'bb'.repeat(8), traceFlags: 1 };
  const [id] = await store.messages.insert([
    {
      namespace: 'USER',
      sessionId: null,
      parentId: null,
      correspondingId: null,
      kind: 'request',
      source: 'Checkout',
      target: 'Ledger',
      responseRequired: false,
      status: 'queued',
      priority: 0,
      description: '',
      body: { classname: 'traced_components.Order', encoding: 'json', data: '{"n":3}' },
      traceParent: formatTraceParent(sender),
    },
  ]);
  await user.start('Traced.Production');
  await eventually(async () => (await store.messages.get('USER', id!))?.status === 'completed' || undefined, 'the stored request to be handled');
  await user.stop();
  const hop = named('operation Ledger').find((span) => span.attributes['conveyor.message.id'] === id)!;
  expect(hop.spanContext().traceId).toBe(sender.traceId);
  expect(parentOf(hop)).toBe(sender.spanId);
  expect(hop.parentSpanContext?.isRemote).toBe(true);
}
