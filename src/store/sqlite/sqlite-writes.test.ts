import type Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMessage } from '../conformance/harness.ts';
import { openDatabase, openSqliteStore } from './sqlite-store.ts';
import { firstFreeMessageId, foldPatchesIntoInserts, sqliteBatchWriter, type SqliteWrite } from './sqlite-writes.ts';

describe('foldPatchesIntoInserts', () => {
  const insert = (...ids: number[]): SqliteWrite => ({ kind: 'insert-messages', namespaceIds: ids.map(() => 1), ids, messages: ids.map(() => newMessage()) });

  it('merges the patches that follow an insert of the same batch, in order, ignoring fields given as undefined', () => {
    const folded = foldPatchesIntoInserts([
      insert(10, 11),
      { kind: 'patch-messages', patches: [{ id: 10, status: 'delivered', leaseOwner: 'job-1' }] },
      {
        kind: 'patch-messages',
        patches: [
          { id: 10, status: 'completed', leaseOwner: null, error: undefined },
          { id: 99, status: 'error' },
        ],
      },
    ]);
    expect([...folded.rows]).toEqual([[10, { status: 'completed', leaseOwner: null }]]);
    expect(folded.patches.size).toBe(2);
  });

  it('leaves a patch that comes before the insert of its message alone', () => {
    expect(foldPatchesIntoInserts([{ kind: 'patch-messages', patches: [{ id: 10, status: 'completed' }] }, insert(10)]).rows.size).toBe(0);
  });
});

describe('sqliteBatchWriter', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-writes-'));
    await (await openSqliteStore({ path: join(dir, 'store.db') })).close(); // the schema
    db = openDatabase({ path: join(dir, 'store.db') });
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });
  const row = (id: number): Record<string, unknown> =>
    db.prepare('SELECT status, corresponding_id, error, attempts, lease_owner, lease_until FROM messages WHERE id = ?').get(id) as Record<string, unknown>;

  it('writes a message inserted and patched in one batch as it ends up, the same row as an insert then an update', () => {
    const write = sqliteBatchWriter(db);
    const patches = [
      { id: 0, status: 'delivered' as const, leaseOwner: 'job-1', leaseUntil: 123, attempts: 1 },
      { id: 0, status: 'error' as const, correspondingId: 7, error: 'boom', leaseOwner: null, leaseUntil: null },
    ];
    const batchFor = (id: number): SqliteWrite[] => patches.map((patch) => ({ kind: 'patch-messages', patches: [{ ...patch, id }] }));
    const results = write([{ kind: 'insert-messages', namespaceIds: [1], ids: [1], messages: [newMessage()] }, ...batchFor(1)]);
    expect(results).toEqual([[1], [], []]);
    write([{ kind: 'insert-messages', namespaceIds: [1], ids: [2], messages: [newMessage()] }]);
    write(batchFor(2));
    expect(row(1)).toEqual({ status: 'error', corresponding_id: 7, error: 'boom', attempts: 1, lease_owner: null, lease_until: null });
    expect(row(1)).toEqual(row(2));
  });

  it('refuses a patch that comes before the insert of its message in the batch, even when a later one is folded', () => {
    const write = sqliteBatchWriter(db);
    expect(() =>
      write([
        { kind: 'patch-messages', patches: [{ id: 1, status: 'delivered' }] },
        { kind: 'insert-messages', namespaceIds: [1], ids: [1], messages: [newMessage()] },
        { kind: 'patch-messages', patches: [{ id: 1, status: 'completed' }] },
      ]),
    ).toThrow(/no message with that id/);
  });

  it('still refuses a patch of a message that neither exists nor is inserted in the batch', () => {
    const write = sqliteBatchWriter(db);
    expect(() =>
      write([
        { kind: 'insert-messages', namespaceIds: [1], ids: [1], messages: [newMessage()] },
        { kind: 'patch-messages', patches: [{ id: 2, status: 'completed' }] },
      ]),
    ).toThrow(/no message with that id/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 0 });
  });

  it('moves the id sequence ahead a block at a time, so that most commits leave it alone, and never reuses an id after a restart', () => {
    const insertOne = (write: ReturnType<typeof sqliteBatchWriter>, id: number) =>
      write([{ kind: 'insert-messages', namespaceIds: [1], ids: [id], messages: [newMessage()] }]);
    const sequence = () => db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").pluck().get() as number;
    const write = sqliteBatchWriter(db);
    insertOne(write, 1); // creates the row
    insertOne(write, 2);
    const ahead = sequence();
    expect(ahead).toBeGreaterThan(2);
    for (let id = 3; id < 50; id++) insertOne(write, id);
    expect(sequence()).toBe(ahead);
    // A restart goes on after the reserved block; a store whose newest rows were deleted still does.
    db.prepare('DELETE FROM messages WHERE id > 10').run();
    expect(firstFreeMessageId(db)).toBe(ahead + 1);
  });
});
