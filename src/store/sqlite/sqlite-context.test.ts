import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConveyorError } from '../../core/errors.ts';
import { isDatabaseFailure, positiveLimit, toStoreError } from './sqlite-context.ts';

/** Makes a real SQLite error with the given failure. */
function sqliteError(sql: string, db: Database.Database): unknown {
  try {
    db.exec(sql);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('sqlite error translation', () => {
  it('wraps driver errors in ERR_STORE naming the action, and passes ConveyorErrors through', () => {
    const db = new Database(':memory:');
    const error = toStoreError('save a thing', sqliteError('SELECT * FROM missing_table', db));
    expect(error).toMatchObject({ code: 'ERR_STORE', message: 'Could not save a thing: no such table: missing_table' });
    const own = new ConveyorError('ERR_NAMESPACE_UNKNOWN', 'nope');
    expect(toStoreError('x', own)).toBe(own);
    db.close();
  });

  it('tells failures of the database (a held lock) from failures of one write (a constraint)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-lock-'));
    const path = join(dir, 'lock.db');
    const holder = new Database(path);
    holder.exec('CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)');
    const other = new Database(path, { timeout: 0 });
    holder.exec('BEGIN EXCLUSIVE');
    const busy = sqliteError('INSERT INTO t VALUES (2)', other);
    holder.exec('ROLLBACK');
    const constraint = sqliteError('INSERT INTO t VALUES (1)', other);
    expect(isDatabaseFailure(busy)).toBe(true);
    expect(isDatabaseFailure(toStoreError('write', busy))).toBe(true);
    expect(isDatabaseFailure(constraint)).toBe(false);
    expect(isDatabaseFailure(toStoreError('write', constraint))).toBe(false);
    expect(isDatabaseFailure(new ConveyorError('ERR_MESSAGE_NOT_FOUND', 'gone'))).toBe(false);
    other.close();
    holder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads limits of zero, negative or non-numbers as nothing', () => {
    expect([positiveLimit(0), positiveLimit(-1), positiveLimit(Number.NaN), positiveLimit(2.7), positiveLimit(50)]).toEqual([0, 0, 0, 2, 50]);
  });
});
