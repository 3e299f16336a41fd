/**
 * Patches of requests handed on before their rows were committed (insertClaimed with ids drawn
 * ahead): they follow the insert into its committer and are folded into it, or wait for its commit.
 * So do the inserts that refer to them (a response, a child request): never committed first.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newMessage } from '../conformance/harness.ts';
import type { MessageRepository, Store } from '../store.ts';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema, waitFor } from './pg-test-support.ts';
import { openPostgresStore } from './postgres-store.ts';

describePg('PostgreSQL patches of uncommitted hand-offs', () => {
  const schema = uniqueSchema('handoff');
  let store: Store;
  let messages: Required<Pick<MessageRepository, 'insertClaimed'>> & MessageRepository;

  beforeAll(async () => {
    store = await openPostgresStore(pgUrl, { schema });
    messages = store.messages as typeof messages;
  });
  afterAll(async () => {
    await store.close();
    await dropSchema(schema);
  });

  /** Whether the row was inserted as it is (never updated since): its version was written by the transaction that wrote its body. */
  async function insertedFinished(id: number): Promise<boolean> {
    const rows = await adminQuery<{ same: boolean }>(
      `SELECT m.xmin::text = b.xmin::text AS same FROM ${schema}.messages m JOIN ${schema}.message_bodies b ON b.message_id = m.id WHERE m.id = $1`,
      [id],
    );
    return rows[0]!.same;
  }

  async function row(id: number): Promise<{ status: string; error: string | null; attempts: number; lease_owner: string | null }> {
    const rows = await adminQuery<{ status: string; error: string | null; attempts: number; lease_owner: string | null }>(
      `SELECT status, error, attempts, lease_owner FROM ${schema}.messages WHERE id = $1`,
      [id],
    );
    return rows[0]!;
  }

  it('folds the outcome of a request handed on before its commit into its insert', async () => {
    const [parent] = await store.messages.insert([newMessage()]);
    // The first hand-offs may find no ids drawn yet (they wait for their commit instead): go on until one is folded.
    const finished: number[] = [];
    await waitFor(
      async () => {
        const { ids, committed } = await messages.insertClaimed([newMessage({ parentId: parent! })], 'node-a', 60_000, { lazy: true });
        await Promise.all([committed, messages.update([{ id: ids[0]!, status: 'error', error: 'boom', attempts: 2, leaseOwner: null }])]);
        finished.push(ids[0]!);
        return insertedFinished(ids[0]!);
      },
      10_000,
      'a patch folded into its insert',
    );
    for (const id of finished) expect(await row(id)).toEqual({ status: 'error', error: 'boom', attempts: 2, lease_owner: null });
  });

  it('never commits a response, or a child request, before the uncommitted request handed on that it refers to', async () => {
    // Connected beforehand: the check runs the moment the response's commit is reported.
    const reader = new pg.Client({ connectionString: pgUrl });
    await reader.connect();
    try {
      const stored = async (id: number): Promise<boolean> => (await reader.query(`SELECT 1 FROM ${schema}.messages WHERE id = $1`, [id])).rowCount === 1;
      let handedBeforeCommit = 0;
      for (let round = 0; round < 8; round++) {
        // A root request whose sender waits only for its reply: it rides in a later commit (up to
        // 20 ms) of the committer that need not wait for the disk; a response without a parent goes
        // to the other one.
        const lazy = await messages.insertClaimed([newMessage({ responseRequired: true })], 'node-a', 60_000, { lazy: true });
        if (!(await stored(lazy.ids[0]!))) handedBeforeCommit += 1;
        const [response] = await store.messages.insert([newMessage({ kind: 'response', correspondingId: lazy.ids[0]!, status: 'completed' })]);
        expect(await stored(lazy.ids[0]!)).toBe(true);
        // A root request acknowledged once durable: its commit waits for the disk, its child's need not.
        const durable = await messages.insertClaimed([newMessage()], 'node-a', 60_000);
        const [child] = await store.messages.insert([newMessage({ parentId: durable.ids[0]! })]);
        expect(await stored(durable.ids[0]!)).toBe(true);
        await Promise.all([lazy.committed, durable.committed, messages.update([{ id: lazy.ids[0]!, status: 'completed' }])]);
        expect(await stored(response!)).toBe(true);
        expect(await stored(child!)).toBe(true);
      }
      // Ids drawn ahead: most hand-offs went on before their commit (else this test proves nothing).
      expect(handedBeforeCommit).toBeGreaterThan(4);
    } finally {
      await reader.end();
    }
  });

  it('applies a patch of rows in both committers after their commits', async () => {
    const [parent] = await store.messages.insert([newMessage()]);
    const [child] = await store.messages.insert([newMessage({ parentId: parent! })]);
    for (let round = 0; round < 5; round++) {
      // One hand-off goes through the committer that waits for the disk, one through the other.
      const durable = await messages.insertClaimed([newMessage()], 'node-a', 60_000);
      const relaxed = await messages.insertClaimed([newMessage({ parentId: child! })], 'node-a', 60_000, { lazy: true });
      await messages.update([
        { id: durable.ids[0]!, status: 'completed' },
        { id: relaxed.ids[0]!, status: 'completed' },
      ]);
      await Promise.all([durable.committed, relaxed.committed]);
      expect((await row(durable.ids[0]!)).status).toBe('completed');
      expect((await row(relaxed.ids[0]!)).status).toBe('completed');
    }
  });
});

describePg('PostgreSQL message text', () => {
  const schema = uniqueSchema('text');
  let store: Store;
  beforeAll(async () => {
    store = await openPostgresStore(pgUrl, { schema });
  });
  afterAll(async () => {
    await store.close();
    await dropSchema(schema);
  });

  it('stores bodies and fields with quotes, backslashes, braces, commas, unicode and a lone surrogate', async () => {
    const data = '{"a":"\\"q\\" \\\\ {x,y} NULL é 😀"}' + ' \ud800';
    const [id] = await store.messages.insert([newMessage({ description: 'a, "b" {c}', body: { classname: 'm.X', encoding: 'json', data } })]);
    const stored = await store.messages.get('USER', id!);
    expect(stored?.description).toBe('a, "b" {c}');
    expect(stored?.body.data).toBe(data.replace('\ud800', '\ufffd'));
    await store.messages.update([{ id: id!, status: 'error', error: 'a "b" \\ {c} \udc00', leaseOwner: null }]);
    expect(await store.messages.get('USER', id!)).toMatchObject({ status: 'error', error: 'a "b" \\ {c} \ufffd', leaseOwner: null });
  });
});
