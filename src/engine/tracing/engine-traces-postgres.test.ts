/**
 * Traces across PostgreSQL nodes: a hop continues the trace whose context it claimed from the shared
 * database — a request stored by a sender, and a request one node took, left unfinished when it
 * went away, and another node took over.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/open-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from '../../store/postgres/pg-test-support.ts';
import type { Store } from '../../store/store.ts';
import { eventually, tempDir } from '../../../test/support/temp-dir.ts';
import { Engine } from '../engine.ts';
import { expectStoredContextContinued, idOf, named, openEngine, parentOf, traceEachTest } from './trace-test-support.ts';

traceEachTest();

const urlOf = (schema: string) => `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;

describePg('traces across PostgreSQL nodes', () => {
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = uniqueSchema('traces');
    schemas.push(schema);
    return urlOf(schema);
  };
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('continues the trace of a request claimed from the shared database', async () => {
    const store = await openStore({ url: newSchema() });
    const { engine, user } = await openEngine(store);
    try {
      await expectStoredContextContinued(store, user);
    } finally {
      await engine.close();
      await store.close();
    }
  });

  describe('a request one node took and left unfinished', () => {
    const flags = tempDir('conveyor-trace-flags-');
    afterAll(() => flags.remove());

    it('is handled by the other node in the trace of the span that sent it', async () => {
      process.env['CONVEYOR_TRACE_TEST_DIR'] = flags.path;
      const url = newSchema();
      const stores: Store[] = [];
      const engines: Engine[] = [];
      try {
        // Two nodes on one database; the production started on the first runs on both.
        stores.push(await openStore({ url }), await openStore({ url }));
        // Short leases: the node left behind takes the order over a second after the other went away.
        const options = { graceMs: 500, drainTimeoutMs: 500, leaseMs: 1000 };
        const { engine: a, user } = await openEngine(stores[0]!, options);
        engines.push(a, await Engine.open(stores[1]!, options));
        const userB = await engines[1]!.namespace('USER');
        writeFileSync(join(flags.path, 'hold'), '');
        await user.start('Traced.Handover');
        await eventually(async () => (await userB.status()).status === 'running' || undefined, 'the second node to join');

        // Whichever node polls sends the order; its Hold job takes it and waits.
        writeFileSync(join(flags.path, 'go'), '');
        const request = await eventually(async () => {
          const [found] = await user.messages.search({ target: 'Hold', kind: 'request', limit: 1 });
          return found && (await stores[0]!.messages.get('USER', found.id))?.status === 'delivered' ? found : undefined;
        }, 'a node to take the order');
        const owner = (await stores[0]!.messages.get('USER', request.id))!.leaseOwner;
        const taker = engines.findIndex((engine) => engine.coordinator.nodeId === owner);
        expect(taker, `lease owner ${owner}`).toBeGreaterThanOrEqual(0);
        const other = 1 - taker;

        // That node goes away with the order unfinished; the other one takes it over once its lease ran out.
        await engines[taker]!.close(500);
        expect(existsSync(join(flags.path, 'go'))).toBe(false);
        rmSync(join(flags.path, 'hold'));
        await eventually(
          async () => (await stores[other]!.messages.get('USER', request.id))?.status === 'completed' || undefined,
          'the other node to finish it',
          40_000,
        );
        expect((await stores[other]!.messages.get('USER', request.id))!.leaseOwner).toBe(engines[other]!.coordinator.nodeId);

        // Its hop hangs under the Python call of the service that sent the order, on the first node.
        const relayCall = named('python on_process_input').find((span) => span.attributes['conveyor.item'] === 'Relay')!;
        expect(relayCall).toBeDefined();
        const hops = named('operation Hold').filter((span) => span.attributes['conveyor.message.id'] === request.id);
        expect(hops.length).toBeGreaterThanOrEqual(1);
        const finishing = hops[hops.length - 1]!;
        expect(parentOf(finishing)).toBe(idOf(relayCall));
        expect(finishing.spanContext().traceId).toBe(relayCall.spanContext().traceId);
        expect(named('python on_message').some((span) => parentOf(span) === idOf(finishing) && span.status.code === 0)).toBe(true);
      } finally {
        delete process.env['CONVEYOR_TRACE_TEST_DIR'];
        for (const engine of engines) await engine.close(500).catch(() => undefined);
        for (const store of stores) await store.close().catch(() => undefined);
      }
    });
  });
});
