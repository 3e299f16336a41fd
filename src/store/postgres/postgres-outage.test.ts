/**
 * Losing the database: a node keeps running, answers with ERR_STORE_UNAVAILABLE while PostgreSQL
 * cannot be reached, and resumes by itself once it can. The outage is real (a relay in front of
 * PostgreSQL drops every connection and refuses new ones).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { newMessage } from '../conformance/harness.ts';
import type { Store } from '../store.ts';
import { openPostgresStore } from './postgres-store.ts';
import { describePg, dropSchema, TcpRelay, uniqueSchema, waitFor } from './pg-test-support.ts';

const message = newMessage();

async function failure(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => new Error('expected a failure'),
    (error: unknown) => error,
  );
}

describePg('PostgreSQL store: database outage', () => {
  let relay: TcpRelay;
  let schema: string;
  let store: Store;
  const background: Error[] = [];

  beforeEach(async () => {
    relay = await TcpRelay.start();
    schema = uniqueSchema();
    background.length = 0;
    store = await openPostgresStore(`${relay.url}?schema=${schema}`, { connectTimeoutMs: 2_000, onError: (error) => background.push(error) });
  });

  afterEach(async () => {
    await relay.restore().catch(() => undefined);
    await store.close();
    await relay.cut();
    await dropSchema(schema);
  });

  it('answers with ERR_STORE_UNAVAILABLE during the outage and resumes afterwards', async () => {
    const [first] = await store.messages.insert([message]);
    const heard: (string | null)[] = [];
    await store.cluster!.subscribe('wake', (payload) => heard.push(payload));

    await relay.cut();
    for (const attempt of [
      () => store.messages.insert([message]),
      () => store.messages.claim('USER', ['Op'], 'node-a', 10, 60_000),
      () => store.namespaces.list(),
      () => store.cluster!.heartbeat('node-a'),
    ]) {
      const error = await failure(attempt());
      expect(isConveyorError(error, 'ERR_STORE_UNAVAILABLE'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/cannot be reached/);
    }
    expect(background.length).toBeGreaterThan(0);

    await relay.restore();
    await waitFor(async () => (await store.namespaces.list().catch(() => [])).length > 0, 10_000, 'the store to answer again');
    const [second] = await store.messages.insert([message]);
    expect(second).toBeGreaterThan(first!);
    expect((await store.messages.claim('USER', ['Op'], 'node-a', 10, 60_000)).map((m) => m.id)).toEqual([first, second]);
    // The listening connection came back too: handlers hear the gap, then live notifications.
    await waitFor(() => heard.includes(null), 10_000, 'the LISTEN connection to return');
    await store.cluster!.notify('wake', 'back');
    await waitFor(() => heard.includes('back'), 5_000, 'a notification after the outage');
  });
});
