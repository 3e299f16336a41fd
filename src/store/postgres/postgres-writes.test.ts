/** Which batch failures are retried op by op, and which commits wait for the disk (the batch writer itself runs in every PostgreSQL suite). */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConveyorError } from '../../core/errors.ts';
import { newMessage } from '../conformance/harness.ts';
import type { Store } from '../store.ts';
import { describePg, dropSchema, pgUrl, uniqueSchema } from './pg-test-support.ts';
import { toStoreError } from './postgres-context.ts';
import { openPostgresStore } from './postgres-store.ts';
import {
  isWritesOwnFailure,
  postgresBatchWriter,
  reserveMessageIdsSql,
  writeStatements,
  writeWeight,
  hotPathPlannerSettings,
  type PgWrite,
} from './postgres-writes.ts';

const pgError = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });

describe('PostgreSQL batch failures', () => {
  it('retries op by op when one write may be at fault', () => {
    expect(isWritesOwnFailure(new ConveyorError('ERR_MESSAGE_NOT_FOUND', 'no message 5'))).toBe(true);
    expect(isWritesOwnFailure(new ConveyorError('ERR_NAMESPACE_UNKNOWN', 'no namespace'))).toBe(true);
    expect(isWritesOwnFailure(toStoreError('write', pgError('23514', 'violates check constraint')))).toBe(true);
  });

  it('fails the whole batch at once when the database itself failed', () => {
    expect(isWritesOwnFailure(toStoreError('write', pgError('ECONNREFUSED')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', new Error('Connection terminated unexpectedly')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('57P01', 'terminating connection due to administrator command')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('53100', 'could not extend file: No space left on device')))).toBe(false);
    expect(isWritesOwnFailure(toStoreError('write', pgError('XX000', 'internal error')))).toBe(false);
  });

  it('weighs an op by its rows', () => {
    expect(writeWeight({ kind: 'patch-messages', patches: [{ id: 1 }, { id: 2 }] })).toBe(2);
    expect(writeWeight({ kind: 'append-log', namespace: 'USER', entries: [] })).toBe(1);
  });
});

/**
 * Which commits wait for the disk. The batch runs on a real connection inside a transaction block
 * opened by the test, so the setting the statement chose for its transaction can be read back
 * before that transaction ends (and is then rolled back).
 */
describePg('PostgreSQL batch commits and the disk', () => {
  const schema = uniqueSchema('writes');
  let store: Store;
  let pool: pg.Pool;

  beforeAll(async () => {
    store = await openPostgresStore(pgUrl, { schema });
    pool = new pg.Pool({ connectionString: pgUrl, options: `-c search_path=${schema}`, max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await store.close();
    await dropSchema(schema);
  });

  /** The `synchronous_commit` in force at the end of a batch's transaction. */
  async function commitSetting(batch: PgWrite[]): Promise<string> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // The batch writer borrows this very connection (and gives nothing back: the test does).
      const borrowed = new Proxy(client, { get: (target, key) => (key === 'release' ? () => undefined : Reflect.get(target, key, target)) });
      const inBlock = { connect: async () => borrowed } as unknown as pg.Pool;
      await postgresBatchWriter(inBlock, schema, async () => 1)(batch);
      const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      return rows[0]!.synchronous_commit;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  it('lets a batch about requests with a parent commit without waiting for the disk', async () => {
    const [parent] = await store.messages.insert([newMessage()]);
    const [child] = await store.messages.insert([newMessage({ parentId: parent! })]);
    expect(
      await commitSetting([{ kind: 'insert-messages', messages: [newMessage({ parentId: parent! }), newMessage({ parentId: child!, kind: 'response' })] }]),
    ).toBe('off');
    expect(await commitSetting([{ kind: 'patch-messages', patches: [{ id: child!, status: 'completed' }] }])).toBe('off');
    // A request whose sender waits only for its reply: its outcome's commit waits for the disk instead.
    expect(await commitSetting([{ kind: 'insert-messages', messages: [newMessage()], lazy: true }])).toBe('off');
  });

  // (A batch with log entries runs in its own transaction block and never relaxes its commit: not observable from inside a test's block.)
  it('makes every batch that touches a request without a parent wait for the disk', async () => {
    const [root] = await store.messages.insert([newMessage()]);
    const [child] = await store.messages.insert([newMessage({ parentId: root! })]);
    expect(await commitSetting([{ kind: 'insert-messages', messages: [newMessage({ parentId: root! }), newMessage()] }])).toBe('on');
    expect(
      await commitSetting([
        {
          kind: 'patch-messages',
          patches: [
            { id: child!, status: 'completed' },
            { id: root!, status: 'completed' },
          ],
        },
      ]),
    ).toBe('on');
  });

  it('folds a patch of a row inserted in the same batch into the insert, and then judges the row as patched', async () => {
    const [root] = await store.messages.insert([newMessage()]);
    const [childId, rootId] = (await pool.query<{ id: number }>(reserveMessageIdsSql, [2])).rows.map((row) => Number(row.id));
    const batch = (parentId: number | null, id: number): PgWrite[] => [
      { kind: 'insert-messages', messages: [newMessage({ parentId })], lazy: true, ids: [id] },
      { kind: 'patch-messages', patches: [{ id, status: 'error', error: 'boom', attempts: 3 }] },
    ];
    expect(await commitSetting(batch(root!, childId!))).toBe('off');
    // Lazy, a request without a parent would not wait; finished, it is an outcome, which waits.
    expect(await commitSetting(batch(null, rootId!))).toBe('on');
    await postgresBatchWriter(pool, schema, async () => 1)(batch(root!, childId!));
    const { rows } = await pool.query('SELECT status, error, attempts FROM messages WHERE id = $1', [childId]);
    expect(rows).toEqual([{ status: 'error', error: 'boom', attempts: 3 }]);
  });

  it('folds a patch whose error text holds a lone surrogate into its insert as the UPDATE would store it', async () => {
    const [root] = await store.messages.insert([newMessage()]);
    const [id] = (await pool.query<{ id: number }>(reserveMessageIdsSql, [1])).rows.map((row) => Number(row.id));
    await postgresBatchWriter(
      pool,
      schema,
      async () => 1,
    )([
      { kind: 'insert-messages', messages: [newMessage({ parentId: root! })], lazy: true, ids: [id!] },
      { kind: 'patch-messages', patches: [{ id: id!, status: 'error', error: 'boom \ud800', leaseOwner: 'node \udc00' }] },
    ]);
    const { rows } = await pool.query('SELECT status, error, lease_owner FROM messages WHERE id = $1', [id]);
    expect(rows).toEqual([{ status: 'error', error: 'boom \ufffd', lease_owner: 'node \ufffd' }]);
  });

  it('refuses a number JSON cannot carry (NaN, an infinity) instead of storing NULL', async () => {
    const [id] = await store.messages.insert([newMessage()]);
    const write = postgresBatchWriter(pool, schema, async () => 1);
    await expect(
      write([{ kind: 'patch-messages', patches: [{ id: id!, status: 'delivered', leaseOwner: 'n', leaseUntil: Number.NaN }] }]),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
    });
    await expect(write([{ kind: 'insert-messages', messages: [newMessage({ priority: Number.POSITIVE_INFINITY })] }])).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
    });
    const { rows } = await pool.query('SELECT status, lease_until FROM messages WHERE id = $1', [id]);
    expect(rows).toEqual([{ status: 'queued', lease_until: null }]);
  });

  it('leaves the connection as it was after a batch that did not wait', async () => {
    const [root] = await store.messages.insert([newMessage()]);
    await postgresBatchWriter(pool, schema, async () => 1)([{ kind: 'insert-messages', messages: [newMessage({ parentId: root! })] }]);
    const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    expect(rows[0]!.synchronous_commit).toBe('on');
  });
});

/**
 * The batch statements keep reaching rows by key with a plan made while the messages table was
 * empty: the generic plan a prepared statement keeps after its sixth run (forced here at once).
 */
describePg('PostgreSQL batch statement plans', () => {
  const schema = uniqueSchema('plans');
  let client: pg.Client;

  beforeAll(async () => {
    await (await openPostgresStore(pgUrl, { schema })).close();
    client = new pg.Client({ connectionString: pgUrl, options: `-c search_path=${schema} ${hotPathPlannerSettings}` });
    await client.connect();
    await client.query('SET plan_cache_mode = force_generic_plan');
  });
  afterAll(async () => {
    await client.end();
    await dropSchema(schema);
  });

  it.each(Object.entries(writeStatements))('reads no table whole in the %s statement', async (_shape, statement) => {
    await client.query(`PREPARE ${statement.name.replaceAll('-', '_')} AS ${statement.text}`);
    const parameters = (statement.text.match(/\$\d+/g) ?? []).reduce((most, p) => Math.max(most, Number(p.slice(1))), 0);
    const args = Array.from({ length: parameters }, (_, index) => (index === 0 ? '0' : index === 1 ? 'false' : "'{}'"));
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${statement.name.replaceAll('-', '_')} (${args.join(', ')})`);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan on messages|Hash Join|Merge Join/);
    if (statement.text.includes('UPDATE messages')) expect(plan).toMatch(/Index Scan using messages_pkey on messages m/);
  });
});
