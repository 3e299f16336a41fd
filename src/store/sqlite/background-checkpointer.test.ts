import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMessage } from '../conformance/harness.ts';
import { BackgroundCheckpointer } from './background-checkpointer.ts';
import { openSqliteStore } from './sqlite-store.ts';

describe('background checkpointer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-checkpoint-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves a store without a WAL file (in memory) to SQLite: its writes commit', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    await store.namespaces.create('USER');
    const [id] = await store.messages.insert([newMessage()]);
    expect((await store.messages.get('USER', id!))?.status).toBe('queued');
    await store.close();
  });

  it('copies the WAL into the database file from its worker while the store stays open, and nothing is lost', async () => {
    const path = join(dir, 'store.db');
    const store = await openSqliteStore({ path });
    await store.namespaces.create('USER');
    const before = statSync(path).size;
    const body = { classname: 'Big', encoding: 'json' as const, data: JSON.stringify({ text: 'x'.repeat(8000) }) };
    // About 2,000 WAL pages: past the checkpoint threshold, which the main connection no longer applies itself.
    for (let round = 0; round < 20; round++) await store.messages.insert(Array.from({ length: 10 }, () => newMessage({ body })));
    const deadline = Date.now() + 10_000;
    while (statSync(path).size === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statSync(path).size).toBeGreaterThan(before);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 200 });
    db.close();
  });

  it('makes the WAL rewind under steady writes once it passes its bound, instead of growing with every commit', async () => {
    const path = join(dir, 'store.db');
    const store = await openSqliteStore({ path, walRestartFrames: 1_000 });
    await store.namespaces.create('USER');
    const body = { classname: 'Big', encoding: 'json' as const, data: JSON.stringify({ text: 'x'.repeat(8000) }) };
    // One message per commit, back to back: no pause in which a PASSIVE checkpoint alone would let the WAL start over.
    for (let i = 0; i < 2_000; i++) await store.messages.insert([newMessage({ body })]);
    // Without the rewind the WAL would hold every frame written: several per commit, past 8,000 here.
    const other = new Database(path);
    const log = (other.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
    other.close();
    expect(log).toBeLessThan(4_000);
    expect(statSync(`${path}-wal`).size).toBeLessThan(4_000 * 4_120);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 2_000 });
    db.close();
  });

  it('makes the WAL rewind even while claims commit on the same connection between the group commits', async () => {
    const path = join(dir, 'store.db');
    const store = await openSqliteStore({ path, walRestartFrames: 1_000 });
    await store.namespaces.create('USER');
    for (let i = 0; i < 10; i++) await store.messages.insert(Array.from({ length: 500 }, () => newMessage({ target: 'Backlog' })));
    let stop = false;
    let claimed = 0;
    // Claims are writes of their own (not group-committed): one landing while the worker copies
    // would leave the WAL not fully copied, and no rewind, if the catch-up did not hold them.
    const claimer = (async () => {
      while (!stop) {
        claimed += (await store.messages.claim('USER', ['Backlog'], 'node-1', 1, 60_000)).length;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const body = { classname: 'Big', encoding: 'json' as const, data: JSON.stringify({ text: 'x'.repeat(8000) }) };
    for (let i = 0; i < 2_000; i++) await store.messages.insert([newMessage({ body })]);
    stop = true;
    await claimer;
    const other = new Database(path);
    const log = (other.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
    other.close();
    expect(claimed).toBeGreaterThan(100);
    expect(log).toBeLessThan(4_000);
    await store.close();
  });

  it('lets a catch-up asked before any checkpoint (no worker yet) settle at once, so a held commit goes on', async () => {
    const checkpointer = new BackgroundCheckpointer(join(dir, 'none.db'));
    expect(checkpointer.restartDue()).toBe(false);
    expect(await checkpointer.catchUp()).toBe(false);
    await checkpointer.close();
  });
});
