/** The PostgreSQL driver: what it adds or does differently from SQLite (the shared contract is the conformance suite). */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { runStoreConformance } from '../conformance.ts';
import { newMessage } from '../conformance/harness.ts';
import type { Store } from '../store.ts';
import { postgresMigrations } from './migrations.ts';
import { openPostgresStore } from './postgres-store.ts';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema } from './pg-test-support.ts';

describePg('PostgreSQL store: the shared contract', () => {
  runStoreConformance('postgres', async () => {
    const schema = uniqueSchema();
    return {
      store: await openPostgresStore(pgUrl, { schema }),
      reopen: () => openPostgresStore(pgUrl, { schema }),
      cleanup: () => dropSchema(schema),
    };
  });
});

describePg('PostgreSQL store', () => {
  let schema: string;
  let store: Store;

  beforeEach(async () => {
    schema = uniqueSchema();
    store = await openPostgresStore(pgUrl, { schema });
  });

  afterEach(async () => {
    await store.close();
    await dropSchema(schema);
  });

  it('creates its schema, migrates it and reports the multi-node capabilities', async () => {
    expect(store.capabilities).toEqual({ multiNode: true, notify: true });
    expect(store.cluster).toBeDefined();
    expect(await store.namespaces.list()).toEqual(['USER']);
    const versions = await adminQuery<{ version: number; name: string }>(`SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`);
    // Every step of the build, in order (the first six are the released base; later ones are appended).
    expect(versions.map((row) => row.name)).toEqual(postgresMigrations.map((step) => step.name));
    expect(versions.slice(0, 6).map((row) => row.name)).toEqual([
      'namespaces-and-definitions',
      'messages',
      'event-log',
      'cluster',
      'package-swaps',
      'message-trace-context',
    ]);
  });

  it('opens an existing schema without migrating again, from several openers at once', async () => {
    const others = await Promise.all([openPostgresStore(pgUrl, { schema }), openPostgresStore(pgUrl, { schema })]);
    await Promise.all(others.map((other) => other.close()));
    const rows = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations`);
    expect(rows[0]!.n).toBe(postgresMigrations.length);
  });

  it('refuses a database migrated by a newer Conveyor', async () => {
    await adminQuery(`INSERT INTO ${schema}.schema_migrations (version, name, applied_at) VALUES (99, 'from-the-future', 0)`);
    const error = await openPostgresStore(pgUrl, { schema }).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_STORE')).toBe(true);
    expect((error as Error).message).toContain(`schema version 99, newer than this Conveyor knows (${postgresMigrations.length})`);
  });

  it('gives a first message its own id as session id, in one group commit with the rest', async () => {
    const [first, second] = await Promise.all([store.messages.insert([newMessage()]), store.messages.insert([newMessage({ sessionId: 77 })])]);
    expect((await store.messages.get('USER', first![0]!))!.sessionId).toBe(first![0]);
    expect((await store.messages.get('USER', second![0]!))!.sessionId).toBe(77);
  });

  it('applies several patches of one message in one batch in order', async () => {
    const [id] = await store.messages.insert([newMessage()]);
    await Promise.all([
      store.messages.update([{ id: id!, status: 'delivered', leaseOwner: 'n1', leaseUntil: 5 }]),
      store.messages.update([{ id: id!, status: 'completed', leaseOwner: null }]),
      store.messages.update([{ id: id!, attempts: 2 }]),
    ]);
    expect(await store.messages.get('USER', id!)).toMatchObject({ status: 'completed', leaseOwner: null, leaseUntil: 5, attempts: 2 });
  });

  it('rejects only the bad write of a batch', async () => {
    const [id] = await store.messages.insert([newMessage()]);
    const results = await Promise.allSettled([
      store.messages.update([{ id: id!, status: 'completed' }]),
      store.messages.update([{ id: 987_654, status: 'completed' }]),
      store.messages.insert([newMessage({ target: 'Other' })]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isConveyorError((results[1] as PromiseRejectedResult).reason, 'ERR_MESSAGE_NOT_FOUND')).toBe(true);
    expect((await store.messages.get('USER', id!))!.status).toBe('completed');
    // The batch is one statement: the failed one wrote nothing, so retrying its ops alone wrote each once.
    expect(await store.messages.count('USER')).toBe(2);
  });

  it('gives the ids of requests inserted claimed before their commit, and applies a patch of one after it', async () => {
    // The first insert draws a block of ids ahead; later ones take theirs from it at once.
    await (
      await store.messages.insertClaimed!([newMessage()], 'node-a', 60_000)
    ).committed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { ids, committed } = await store.messages.insertClaimed!([newMessage(), newMessage({ parentId: 1 })], 'node-a', 60_000);
    expect(ids).toHaveLength(2);
    await store.messages.update([{ id: ids[1]!, status: 'completed' }]);
    await committed;
    expect((await store.messages.get('USER', ids[1]!))!.status).toBe('completed');
    expect((await store.messages.get('USER', ids[0]!))!.sessionId).toBe(ids[0]);
  });

  it('inserts requests already claimed by a node: no other claim takes them, and their lease expires like a claim', async () => {
    const before = Date.now();
    const {
      ids: [id],
      committed,
    } = await store.messages.insertClaimed!([newMessage()], 'node-a', 60_000);
    await committed;
    expect(await store.messages.get('USER', id!)).toMatchObject({ status: 'delivered', leaseOwner: 'node-a' });
    expect((await store.messages.get('USER', id!))!.leaseUntil).toBeGreaterThanOrEqual(before + 60_000);
    expect(await store.messages.claim('USER', ['Op'], 'node-b', 10, 60_000)).toEqual([]);
    expect(await store.messages.releaseExpired('USER', Date.now() + 61_000)).toBe(1);
    expect((await store.messages.claim('USER', ['Op'], 'node-b', 10, 60_000)).map((m) => m.id)).toEqual([id]);
  });

  it('keeps documents exactly as given (no JSONB key reordering)', async () => {
    const definition = { name: 'P.Prod', description: 'd', testingEnabled: true, logGeneralTraceEvents: false, actorPoolSize: 2, items: [] };
    await store.productions.put('USER', definition);
    const rows = await adminQuery<{ definition: string }>(`SELECT definition FROM ${schema}.productions`);
    expect(rows[0]!.definition).toBe(JSON.stringify(definition));
  });

  it('sorts names in byte order whatever the database locale', async () => {
    for (const name of ['b', 'B', 'a', 'A_1']) await store.lookups.put('USER', name, { z: '1', Z: '2', a: '3' });
    expect(await store.lookups.tables('USER')).toEqual(['A_1', 'B', 'a', 'b']);
    expect(Object.keys((await store.lookups.get('USER', 'a'))!)).toEqual(['Z', 'a', 'z']);
  });

  it('numbers concurrent transform versions without gaps or duplicates', async () => {
    const saved = await Promise.all(Array.from({ length: 6 }, (_, n) => store.transforms.put('USER', 'T.X', `<transform n="${n}"/>`)));
    expect(saved.map((t) => t.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await store.transforms.get('USER', 'T.X'))!.version).toBe(6);
  });

  it('refuses an invalid schema name before connecting', async () => {
    const error = await openPostgresStore(pgUrl, { schema: 'x; DROP TABLE y' }).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
  });

  it('fails after close with ERR_STORE_CLOSED', async () => {
    await store.close();
    const error = await store.messages.insert([newMessage()]).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_STORE_CLOSED')).toBe(true);
    expect(isConveyorError(await store.namespaces.list().catch((caught: unknown) => caught), 'ERR_STORE_CLOSED')).toBe(true);
  });
});

describePg('PostgreSQL store without a database', () => {
  let unreachable: string;
  beforeAll(() => {
    // Same credentials, a port nothing listens on: "connection refused" at once.
    const url = new URL(pgUrl);
    url.port = '1';
    unreachable = url.toString();
  });
  afterAll(() => undefined);

  it('says the database cannot be reached, without leaking the password', async () => {
    const error = await openPostgresStore(unreachable, { schema: uniqueSchema() }).catch((caught: unknown) => caught);
    expect(isConveyorError(error, 'ERR_STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/cannot be reached/);
    const password = new URL(pgUrl).password;
    if (password !== '') expect((error as Error).message).not.toContain(`:${password}@`);
  });
});
