/** The node registry of the PostgreSQL store (leases and notifications: postgres-concurrency.test.ts). */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ClusterRepository, Store } from '../store.ts';
import { openPostgresStore } from './postgres-store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from './pg-test-support.ts';

describePg('PostgreSQL cluster repository', () => {
  let schema: string;
  let store: Store;
  let cluster: ClusterRepository;

  beforeEach(async () => {
    schema = uniqueSchema();
    store = await openPostgresStore(pgUrl, { schema });
    cluster = store.cluster!;
  });

  afterEach(async () => {
    await store.close();
    await dropSchema(schema);
  });

  it('registers nodes, records heartbeats by the database clock and lists them', async () => {
    await cluster.registerNode({ nodeId: 'node-b', host: 'h2', pid: 22, apiUrl: null });
    await cluster.registerNode({ nodeId: 'node-a', host: 'h1', pid: 11, apiUrl: 'http://h1:8080' });
    const before = await cluster.listNodes();
    expect(before.map((n) => n.nodeId)).toEqual(['node-a', 'node-b']);
    expect(before[0]).toMatchObject({ nodeId: 'node-a', host: 'h1', pid: 11, apiUrl: 'http://h1:8080' });
    expect(before[0]!.startedAt).toBe(before[0]!.heartbeatAt);
    expect(before[0]!.silentMs).toBeGreaterThanOrEqual(0);
    expect(Math.abs(before[0]!.heartbeatAt - Date.now())).toBeLessThan(60_000);
    expect(await cluster.heartbeat('node-a')).toBe(true);
    const after = await cluster.listNodes();
    expect(after[0]!.heartbeatAt).toBeGreaterThanOrEqual(before[0]!.heartbeatAt);
    expect(after[0]!.startedAt).toBe(before[0]!.startedAt);
  });

  it('tells a node whose row is gone to register again, and removes its leases with it', async () => {
    await cluster.registerNode({ nodeId: 'node-a', host: 'h1', pid: 11, apiUrl: null });
    expect(await cluster.tryAcquireLease('USER/poller', 'node-a', 60_000)).toBe(true);
    await cluster.removeNode('node-a');
    expect(await cluster.heartbeat('node-a')).toBe(false);
    expect(await cluster.listNodes()).toEqual([]);
    expect(await cluster.getLease('USER/poller')).toBeNull();
    expect(await cluster.tryAcquireLease('USER/poller', 'node-b', 60_000)).toBe(true);
  });

  it('re-registering a restarted node replaces its row', async () => {
    await cluster.registerNode({ nodeId: 'node-a', host: 'h1', pid: 11, apiUrl: null });
    await cluster.registerNode({ nodeId: 'node-a', host: 'h1', pid: 12, apiUrl: 'http://h1:1' });
    expect(await cluster.listNodes()).toEqual([expect.objectContaining({ nodeId: 'node-a', pid: 12, apiUrl: 'http://h1:1' })]);
  });
});
