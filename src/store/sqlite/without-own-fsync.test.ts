import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { withoutOwnFsync } from './without-own-fsync.ts';

describe('withoutOwnFsync', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: Database.Database;
  const level = () => Number(db.pragma('synchronous', { simple: true }));

  beforeEach(() => {
    dir = tempDir('conveyor-fsync-');
    db = new Database(`${dir.path}/test.db`);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v INTEGER)');
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it('writes at NORMAL and puts FULL back, also when the work throws', () => {
    db.pragma('synchronous = FULL');
    const seen = withoutOwnFsync(db)(() => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      return level();
    });
    expect(seen).toBe(1);
    expect(level()).toBe(2);
    expect(() =>
      withoutOwnFsync(db)(() => {
        throw new Error('the batch failed');
      }),
    ).toThrow('the batch failed');
    expect(level()).toBe(2);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
  });

  it('writes at NORMAL on every use of one switch, not only the first', () => {
    db.pragma('synchronous = FULL');
    const relaxed = withoutOwnFsync(db);
    expect([relaxed(level), relaxed(level), relaxed(level)]).toEqual([1, 1, 1]);
    expect(level()).toBe(2);
  });

  it('leaves a connection at NORMAL as it is', () => {
    db.pragma('synchronous = NORMAL');
    expect(withoutOwnFsync(db)(level)).toBe(1);
    expect(level()).toBe(1);
  });

  it('is needed because a prepared synchronous PRAGMA takes effect when compiled, not when run', () => {
    db.pragma('synchronous = NORMAL');
    const toFull = db.prepare('PRAGMA synchronous = FULL');
    expect(level()).toBe(2);
    db.pragma('synchronous = NORMAL');
    toFull.run();
    expect(level()).toBe(1);
  });
});
