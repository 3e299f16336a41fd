/**
 * Rows handed on before they were committed (insertClaimed, insertEager: ids drawn ahead): whatever
 * is written about them later commits with them or after them — patches (folded into the insert
 * when both land in one batch), responses, child requests, a caller's outcome.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessage } from '../conformance/harness.ts';
import type { MessageRepository, Store } from '../store.ts';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema, waitFor } from './pg-test-support.ts';
import { openPostgresStore } from './postgres-store.ts';

type HandingOn = Required<Pick<MessageRepository, 'insertClaimed' | 'insertEager'>> & MessageRepository;

describePg('PostgreSQL writes about uncommitted hand-offs', () => {
  const schema = uniqueSchema('handoff');
  let store: Store;
  let messages: HandingOn;
  /** The same tables without group commit (each write its own transaction, run concurrently). */
  let ungrouped: Store;
  /** Connected beforehand: a check runs the moment a commit is reported. */
  let reader: pg.Client;

  beforeAll(async () => {
    store = await openPostgresStore(pgUrl, { schema });
    messages = store.messages as HandingOn;
    ungrouped = await openPostgresStore(pgUrl, { schema, groupCommit: false });
    reader = new pg.Client({ connectionString: pgUrl });
    await reader.connect();
  });
  afterAll(async () => {
    await reader.end();
    await ungrouped.close();
    await store.close();
    await dropSchema(schema);
  });

  async function stored(id: number): Promise<boolean> {
    return (await reader.query(`SELECT 1 FROM ${schema}.messages WHERE id = $1`, [id])).rowCount === 1;
  }

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

  describe.each([
    ['with group commit', () => store],
    ['without group commit', () => ungrouped],
  ])('%s', (_name, which) => {
    it('never commits a response, or a child request, before the uncommitted request handed on that it refers to', async () => {
      const target = which().messages as HandingOn;
      let handedBeforeCommit = 0;
      for (let round = 0; round < 8; round++) {
        // A root request whose sender waits only for its reply: it rides in a later commit (up to
        // 20 ms); a response without a parent makes a commit that waits for the disk.
        const lazy = await target.insertClaimed([newMessage({ responseRequired: true })], 'node-a', 60_000, { lazy: true });
        if (!(await stored(lazy.ids[0]!))) handedBeforeCommit += 1;
        const [response] = await target.insert([newMessage({ kind: 'response', correspondingId: lazy.ids[0]!, status: 'completed' })]);
        expect(await stored(lazy.ids[0]!)).toBe(true);
        // A root request acknowledged once durable: its commit waits for the disk, its child's need not.
        const durable = await target.insertClaimed([newMessage()], 'node-a', 60_000);
        const [child] = await target.insert([newMessage({ parentId: durable.ids[0]! })]);
        expect(await stored(durable.ids[0]!)).toBe(true);
        await Promise.all([lazy.committed, durable.committed, target.update([{ id: lazy.ids[0]!, status: 'completed' }])]);
        expect(await stored(response!)).toBe(true);
        expect(await stored(child!)).toBe(true);
      }
      // Ids drawn ahead: most hand-offs went on before their commit (else this test proves nothing).
      expect(handedBeforeCommit).toBeGreaterThan(4);
    });
  });

  it('assigns ids at once with insertEager; a read here waits for the commit, and a later patch is folded into the rows', async () => {
    const [parent] = await store.messages.insert([newMessage()]);
    const eager = messages.insertEager([newMessage({ parentId: parent! }), newMessage({ parentId: parent! })]);
    expect(eager.ids).toHaveLength(2);
    expect(eager.ids[1]).toBeGreaterThan(eager.ids[0]!);
    // Submitted in the same turn: the patch lands in the insert's batch.
    const patched = messages.update([{ id: eager.ids[1]!, status: 'completed' }]);
    // Read on this node before the commit: the read waits for it (a node sees what it handed on).
    expect((await store.messages.get('USER', eager.ids[0]!))?.id).toBe(eager.ids[0]);
    await eager.committed;
    await patched;
    expect((await store.messages.get('USER', eager.ids[0]!))?.sessionId).toBe(eager.ids[0]);
    expect((await store.messages.get('USER', eager.ids[1]!))?.status).toBe('completed');
    expect(await insertedFinished(eager.ids[1]!)).toBe(true);
  });

  it("commits a caller's outcome no earlier than the lazy rows of the child it heard from (insertEager, lazy patch)", async () => {
    for (let round = 0; round < 5; round++) {
      // The engine's synchronous hop on one node: the child's response and outcome ride lazily (its
      // caller is answered at once), then the caller's own outcome is written and waited for.
      const [caller] = await store.messages.insert([newMessage({ responseRequired: true })]);
      const child = await messages.insertClaimed([newMessage({ parentId: caller!, responseRequired: true })], 'node-a', 60_000, { lazy: true });
      const response = messages.insertEager([newMessage({ kind: 'response', parentId: caller!, correspondingId: child.ids[0]!, status: 'completed' })], {
        lazy: true,
      });
      const childDone = messages.update([{ id: child.ids[0]!, status: 'completed' }], { lazy: true });
      const [outcome] = await store.messages.insert([newMessage({ kind: 'response', correspondingId: caller!, status: 'completed' })]);
      expect(await stored(response.ids[0]!)).toBe(true);
      expect((await row(child.ids[0]!)).status).toBe('completed');
      await Promise.all([response.committed, childDone, child.committed]);
      expect(await stored(outcome!)).toBe(true);
    }
  });

  it('applies a patch of two hand-offs, one acknowledged once durable and one lazy, after their inserts', async () => {
    const [parent] = await store.messages.insert([newMessage()]);
    const [child] = await store.messages.insert([newMessage({ parentId: parent! })]);
    for (let round = 0; round < 5; round++) {
      // One hand-off's commit waits for the disk, the other's need not (and rides in a later commit).
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
