import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { newMessage } from '../conformance/harness.ts';
import { sqliteMigrations } from './migrations.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { statusIndexCondition } from '../status-indexes.ts';

/** Entries of an index: the cells of its leaf pages (a small index has no interior pages). */
function indexEntries(db: Database.Database, index: string): number {
  return db.prepare<[string], number>("SELECT sum(ncell) FROM dbstat WHERE name = ? AND pagetype = 'leaf'").pluck().get(index) ?? 0;
}

describe('sqlite store: status indexes without completed messages', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir('conveyor-status-indexes-');
  });
  afterEach(() => dir.remove());

  async function storeWithOneOfEach(path: string): Promise<number[]> {
    const store = await openSqliteStore({ path });
    try {
      return await store.messages.insert([
        newMessage({ status: 'completed' }),
        newMessage({ status: 'completed', target: 'Other' }),
        newMessage({ status: 'queued' }),
        newMessage({ status: 'error' }),
      ]);
    } finally {
      await store.close();
    }
  }

  it('keeps completed messages out of both indexes, while claims and queue depths still find the rest', async () => {
    const path = join(dir.path, 'store.db');
    const [, , queued] = await storeWithOneOfEach(path);
    const db = new Database(path, { readonly: true });
    try {
      expect(indexEntries(db, 'messages_by_status')).toBe(2);
      expect(indexEntries(db, 'messages_by_target')).toBe(2);
    } finally {
      db.close();
    }
    const store = await openSqliteStore({ path });
    try {
      expect((await store.messages.queueDepths('USER')).map((depth) => [depth.target, depth.queued])).toEqual([['Op', 1]]);
      const claimed = await store.messages.claim('USER', ['Op'], 'node-a', 10, 60_000);
      expect(claimed.map((message) => message.id)).toEqual([queued]);
      // A message completed later leaves the indexes.
      await store.messages.update([{ id: queued!, status: 'completed' }]);
      expect(await store.messages.queueDepths('USER')).toEqual([]);
      // A search by status still finds completed messages (walking the table instead) and failed ones (by the index).
      expect(await store.messages.search('USER', { status: 'completed', limit: 10 })).toHaveLength(3);
      expect(await store.messages.search('USER', { status: 'error', target: 'Op', limit: 10 })).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('rebuilds the full indexes of an older store as partial ones when it opens', async () => {
    const path = join(dir.path, 'old.db');
    await storeWithOneOfEach(path);
    // Put the store back as the step before wrote it: full indexes, neither the step nor the later ones recorded or applied.
    const step = sqliteMigrations.findIndex((migration) => migration.name === 'status-indexes-without-completed') + 1;
    const old = new Database(path);
    old.exec(`
      DROP VIEW message_body_texts;
      DROP INDEX message_bodies_by_holder;
      ALTER TABLE message_bodies DROP COLUMN data_of;
      DROP INDEX messages_by_status;
      DROP INDEX messages_by_target;
      CREATE INDEX messages_by_status ON messages (ns_id, status);
      CREATE INDEX messages_by_target ON messages (ns_id, target, status);
    `);
    old.prepare('DELETE FROM schema_migrations WHERE version >= ?').run(step);
    old.close();

    await (await openSqliteStore({ path })).close();
    const db = new Database(path, { readonly: true });
    try {
      const sql = db.prepare("SELECT name, sql FROM sqlite_master WHERE name IN ('messages_by_status', 'messages_by_target') ORDER BY name").all() as Array<{
        name: string;
        sql: string;
      }>;
      expect(sql.map((index) => index.sql.endsWith(`WHERE ${statusIndexCondition}`))).toEqual([true, true]);
      expect(indexEntries(db, 'messages_by_status')).toBe(2);
      const steps = db.prepare('SELECT name FROM schema_migrations WHERE version = ?').pluck().get(step);
      expect(steps).toBe('status-indexes-without-completed');
    } finally {
      db.close();
    }
  });
});
