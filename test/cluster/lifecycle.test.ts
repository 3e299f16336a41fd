/**
 * Lifecycle rules across nodes on PostgreSQL, with two engines (two nodes) in one process: two
 * starts at the same instant give one production, and a production left recorded as running by
 * nodes that are all gone is troubled and can be started again.
 */
import { afterAll, expect, it } from 'vitest';
import { isConveyorError } from '../../src/core/errors.ts';
import { newItem, newProduction } from '../../src/core/production.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openStore } from '../../src/store/open-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from '../../src/store/postgres/pg-test-support.ts';

describePg('lifecycle commands of several nodes', () => {
  const schema = uniqueSchema('lifecycle');
  const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  afterAll(() => dropSchema(schema));

  const open = async () => {
    const store = await openStore({ url });
    const engine = await Engine.open(store, { drainTimeoutMs: 1000, graceMs: 500, leaseMs: 3000 });
    const user = await engine.namespace('USER');
    return { store, engine, user, close: async () => (await engine.close(), await store.close()) };
  };

  it('lets only one of two simultaneous starts through, and a node left alone start a troubled production', async () => {
    const a = await open();
    const b = await open();
    try {
      const production = (name: string) => newProduction(name, [newItem('Echo', 'Conveyor.Operation.Echo')]);
      await a.user.putDefinition(production('Race.One'));
      await a.user.putDefinition(production('Race.Two'));
      const results = await Promise.allSettled([a.user.start('Race.One'), b.user.start('Race.Two')]);
      const started = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(started).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(isConveyorError(refused[0]!.reason, 'ERR_PRODUCTION_RUNNING'), String(refused[0]!.reason)).toBe(true);
      const winner = (started[0] as PromiseFulfilledResult<string>).value;
      // The other node runs the winner too, and says so.
      for (const node of [a, b]) await expect.poll(async () => (await node.user.status()).production).toBe(winner);
      expect((await b.user.status()).status).toBe('running');
    } finally {
      await a.close();
      await b.close();
    }

    // Every node is gone while the store still records the production as running.
    const c = await open();
    try {
      expect((await c.user.status()).status).toBe('troubled');
      const name = (await c.user.status()).production;
      expect(await c.user.start(name)).toBe(name);
      expect((await c.user.status()).status).toBe('running');
      await c.user.stop();
    } finally {
      await c.close();
    }
  });
});
