/**
 * Traces through the real engine, store and python3 workers, with an in-memory exporter: the span
 * tree of a service → process → operation run, the failure of a Python call, and a hop that
 * continues a trace whose context it read from the database (recovery at start; the PostgreSQL claim
 * is in engine-traces-postgres.test.ts).
 */
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { eventually, tempDir } from '../../../test/support/temp-dir.ts';
import type { Engine } from '../engine.ts';
import type { NamespaceOperations } from '../namespace-operations.ts';
import { expectStoredContextContinued, idOf, named, only, openEngine, parentOf, traceEachTest } from './trace-test-support.ts';
import { formatTraceParent } from './traceparent.ts';

traceEachTest();

describe('traces of a production (SQLite, real Python workers)', () => {
  const dir = tempDir('conveyor-traces-');
  let store: Store;
  let engine: Engine;
  let user: NamespaceOperations;

  beforeEach(async () => {
    store = await openStore({ sqlitePath: join(dir.path, `${Date.now()}-${Math.random()}.db`) });
    ({ engine, user } = await openEngine(store));
  });

  afterEach(async () => {
    await engine.close();
    await store.close();
  });

  afterAll(() => dir.remove());

  it('makes one trace of service → process → operation, each hop under the Python call that sent it', async () => {
    await user.start('Traced.Production');
    await eventually(async () => (await user.log.top(100)).some((entry) => entry.text === 'poll 3') || undefined, 'three polls');
    await user.stop();

    const service = only('service Pulse');
    const serviceCall = named('python on_process_input').find((span) => parentOf(span) === idOf(service))!;
    const process = only('process Checkout');
    const processCall = named('python on_message').find((span) => parentOf(span) === idOf(process))!;
    const operation = only('operation Ledger');
    const operationCall = named('python on_message').find((span) => parentOf(span) === idOf(operation))!;

    // Idle polls (the second on) export nothing.
    expect(named('python on_process_input')).toEqual([serviceCall]);
    // The tree: each span's parent is the one above it; one trace from the service's poll down.
    expect(parentOf(service)).toBeUndefined();
    expect(serviceCall).toBeDefined();
    expect(parentOf(process)).toBe(idOf(serviceCall));
    expect(processCall).toBeDefined();
    expect(parentOf(operation)).toBe(idOf(processCall));
    expect(operationCall).toBeDefined();
    const traceId = service.spanContext().traceId;
    for (const span of [serviceCall, process, processCall, operation, operationCall]) expect(span.spanContext().traceId).toBe(traceId);

    // What each span says: the item, the message, the session.
    const [toCheckout] = await user.messages.search({ target: 'Checkout', kind: 'request', limit: 1 });
    const [toLedger] = await user.messages.search({ target: 'Ledger', kind: 'request', limit: 1 });
    expect(toCheckout!.sessionId).toBe(toLedger!.sessionId);
    const sessionId = toCheckout!.sessionId;
    expect(service.kind).toBe(SpanKind.SERVER);
    expect(service.attributes).toMatchObject({
      'conveyor.namespace': 'USER',
      'conveyor.item': 'Pulse',
      'conveyor.item.kind': 'service',
      'conveyor.session.id': sessionId,
    });
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes).toMatchObject({
      'conveyor.item': 'Checkout',
      'conveyor.item.kind': 'process',
      'conveyor.item.class': 'Traced.Checkout',
      'conveyor.message.id': toCheckout!.id,
      'messaging.message.id': String(toCheckout!.id),
      'conveyor.session.id': sessionId,
      'conveyor.message.source': 'Pulse',
      'conveyor.message.class': 'traced_components.Order',
    });
    expect(operation.attributes).toMatchObject({
      'conveyor.item': 'Ledger',
      'conveyor.item.kind': 'operation',
      'conveyor.message.id': toLedger!.id,
      'conveyor.session.id': sessionId,
    });
    expect(operationCall.attributes).toMatchObject({ 'conveyor.item': 'Ledger', 'code.function.name': 'on_message' });
    expect(operationCall.attributes['conveyor.worker.pid']).toBeTypeOf('number');
    for (const span of [service, process, operation, processCall, operationCall]) expect(span.status.code).toBe(SpanStatusCode.UNSET);

    // The header each message was stored with names the span that sent it.
    const stored = await store.messages.get('USER', toLedger!.id);
    expect(stored!.traceParent).toBe(formatTraceParent(processCall.spanContext()));
  });

  it('marks a failing Python call and its hop as errors, with the Python exception', async () => {
    await user.start('Traced.Production');
    const failure = await user
      .test({ target: 'Ledger', classname: 'traced_components.Order', body: { n: -1 }, restart: false })
      .catch((error: unknown) => error);
    expect(isConveyorError(failure)).toBe(true);
    await user.stop();

    // A message from outside (the test call) starts a trace of its own.
    const operation = named('operation Ledger').find((span) => span.attributes['conveyor.message.source'] !== 'Checkout')!;
    expect(parentOf(operation)).toBeUndefined();
    expect(operation.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringMatching(/negative order -1/) });
    const call = named('python on_message').find((span) => parentOf(span) === idOf(operation))!;
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.events.find((event) => event.name === 'exception')?.attributes).toMatchObject({
      'exception.type': 'ValueError',
      'exception.message': 'negative order -1',
    });
  });

  it('continues the trace of a request it reads back from the database (recovery at start)', async () => {
    await expectStoredContextContinued(store, user);
  });
});
