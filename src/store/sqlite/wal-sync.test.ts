import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { WalSync, WalSyncError } from './wal-sync.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function walDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-wal-sync-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (v TEXT)');
  return { db, walPath: `${path}-wal` };
}

describe('WalSync', () => {
  it('syncs the WAL a commit wrote, and calls made while a sync runs share the next one', async () => {
    const { db, walPath } = walDatabase();
    const sync = new WalSync(walPath);
    db.prepare('INSERT INTO t VALUES (?)').run('a');
    const first = sync.sync();
    const second = sync.sync();
    const third = sync.sync();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await expect(Promise.all([first, second, third])).resolves.toEqual([undefined, undefined, undefined]);
    sync.close();
    db.close();
  });

  it('rejects with a WalSyncError (not retried op by op) when the WAL cannot be opened', async () => {
    const sync = new WalSync(join(tmpdir(), 'conveyor-no-such-dir', 'db.sqlite-wal'));
    const failure = await sync.sync().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WalSyncError);
    expect(isConveyorError(failure, 'ERR_STORE')).toBe(true);
    expect((failure as Error).message).toMatch(/Could not sync the store's write-ahead log/);
  });
});
