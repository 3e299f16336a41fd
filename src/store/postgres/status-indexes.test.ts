/** The status indexes without completed messages on PostgreSQL (src/store/status-indexes.ts, migration 'status-indexes-without-completed'). */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newMessage } from '../conformance/harness.ts';
import type { Store } from '../store.ts';
import { postgresMigrations } from './migrations.ts';
import { openPostgresStore } from './postgres-store.ts';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema } from './pg-test-support.ts';
import { statusIndexCondition } from '../status-indexes.ts';

const step = postgresMigrations.findIndex((migration) => migration.name === 'status-indexes-without-completed');

/** The definitions of the two status indexes, by name. */
async function statusIndexes(schema: string): Promise<Record<string, string>> {
  const rows = await adminQuery<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('messages_by_status', 'messages_by_target') ORDER BY indexname",
    [schema],
  );
  return Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]));
}

/** Puts the schema back as the step before left it: full indexes, the step not recorded. */
async function asBeforeTheStep(schema: string): Promise<void> {
  await adminQuery(`
    SET search_path = ${schema};
    DROP INDEX messages_by_status;
    DROP INDEX messages_by_target;
    CREATE INDEX messages_by_status ON messages (ns_id, status, id);
    CREATE INDEX messages_by_target ON messages (ns_id, target, id);
    DELETE FROM schema_migrations WHERE version = ${step + 1};`);
}

describePg('PostgreSQL store: status indexes without completed messages', () => {
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

  async function oneOfEach(): Promise<number[]> {
    return store.messages.insert([
      newMessage({ status: 'completed' }),
      newMessage({ status: 'completed', target: 'Other' }),
      newMessage({ status: 'queued' }),
      newMessage({ status: 'error', responseRequired: false }),
    ]);
  }

  it('builds both indexes without completed messages, while claims, queue depths, searches and suspended messages still find theirs', async () => {
    const [completed, , queued, failed] = await oneOfEach();
    expect(step).toBe(postgresMigrations.length - 1);
    expect(
      Object.values(await statusIndexes(schema)).map((definition) =>
        definition.endsWith(`WHERE (${statusIndexCondition.replace("'completed'", "'completed'::text")})`),
      ),
    ).toEqual([true, true]);

    expect((await store.messages.queueDepths('USER')).map((depth) => [depth.target, depth.queued])).toEqual([['Op', 1]]);
    expect((await store.messages.unfinished('USER')).map((message) => message.id)).toEqual([queued]);
    expect((await store.controls.suspended('USER', { limit: 10 })).map((message) => message.id)).toEqual([failed]);
    expect(await store.controls.suspendedCounts('USER')).toEqual([{ target: 'Op', count: 1 }]);
    expect((await store.messages.claim('USER', ['Op'], 'node-a', 10, 60_000)).map((message) => message.id)).toEqual([queued]);
    // A message completed later leaves the indexes.
    await store.messages.update([{ id: queued!, status: 'completed' }]);
    expect(await store.messages.queueDepths('USER')).toEqual([]);
    // Searches by status find completed messages (walking the namespace) and the others (by the index).
    expect((await store.messages.search('USER', { status: 'completed', limit: 10 })).map((header) => header.id)).toHaveLength(3);
    expect((await store.messages.search('USER', { status: 'error', target: 'Op', limit: 10 })).map((header) => header.id)).toEqual([failed]);
    expect((await store.messages.find('USER', { status: 'completed', target: 'Op', limit: 10, scanLimit: 100 })).hits.map((hit) => hit.id)).toEqual([
      queued,
      completed,
    ]);
    expect((await store.messages.find('USER', { status: 'error', limit: 10, scanLimit: 100 })).hits.map((hit) => hit.id)).toEqual([failed]);
  });

  it('rebuilds the full indexes of an older schema as partial ones when a node opens it', async () => {
    await oneOfEach();
    await store.close();
    await asBeforeTheStep(schema);
    expect(Object.values(await statusIndexes(schema)).some((definition) => definition.includes('WHERE'))).toBe(false);

    store = await openPostgresStore(pgUrl, { schema });
    expect(Object.values(await statusIndexes(schema)).every((definition) => definition.includes('WHERE'))).toBe(true);
    const last = await adminQuery<{ name: string }>(`SELECT name FROM ${schema}.schema_migrations ORDER BY version DESC LIMIT 1`);
    expect(last[0]!.name).toBe('status-indexes-without-completed');
  });

  it('leaves the full indexes as they were when the migrating node dies before its commit', async () => {
    await store.close();
    await asBeforeTheStep(schema);
    const before = await statusIndexes(schema);
    // The runner's transaction, cut off after the step (the node killed): the server rolls it back.
    const migrating = new pg.Client({ connectionString: pgUrl });
    migrating.on('error', () => undefined);
    await migrating.connect();
    await migrating.query(`SET search_path = ${schema}`);
    await migrating.query('BEGIN');
    await postgresMigrations[step]!.apply(migrating as unknown as pg.PoolClient);
    const pid = (await migrating.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await adminQuery('SELECT pg_terminate_backend($1)', [pid]);
    await migrating.end().catch(() => undefined);

    expect(await statusIndexes(schema)).toEqual(before);
    const recorded = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations WHERE version = $1`, [step + 1]);
    expect(recorded[0]!.n).toBe(0);
    // The next node to open the schema migrates it.
    store = await openPostgresStore(pgUrl, { schema });
    expect(Object.values(await statusIndexes(schema)).every((definition) => definition.includes('WHERE'))).toBe(true);
  });
});
