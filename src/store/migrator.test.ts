import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, type MigrationStep } from './migrator.ts';
import { sqliteMigrationHost } from './sqlite/migrations.ts';

type Db = Database.Database;

const table = (name: string): MigrationStep<Db> => ({ name: `create-${name}`, apply: (db) => void db.exec(`CREATE TABLE ${name} (id INTEGER)`) });
const tables = (db: Db): string[] =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('migrate', () => {
  let db: Db;
  beforeEach(() => {
    db = new Database(':memory:');
  });
  afterEach(() => db.close());

  it('applies pending steps in order, records them, and applies nothing the second time', async () => {
    const steps = [table('a'), table('b')];
    expect(await migrate(sqliteMigrationHost(db), steps, 'test store')).toEqual({ from: 0, to: 2, applied: ['create-a', 'create-b'] });
    expect(await migrate(sqliteMigrationHost(db), steps, 'test store')).toEqual({ from: 2, to: 2, applied: [] });
    const grown = [...steps, table('c')];
    expect(await migrate(sqliteMigrationHost(db), grown, 'test store')).toEqual({ from: 2, to: 3, applied: ['create-c'] });
    expect(tables(db)).toEqual(['a', 'b', 'c', 'schema_migrations']);
  });

  it('rolls back every step of the run when one fails, naming the step', async () => {
    const failing: MigrationStep<Db> = { name: 'broken', apply: (d) => void d.exec('CREATE TABLE oops (') };
    await expect(migrate(sqliteMigrationHost(db), [table('a'), failing], 'test store')).rejects.toMatchObject({
      code: 'ERR_STORE',
      message: expect.stringContaining('Migration 2 ("broken") of the test store failed'),
    });
    expect(tables(db)).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });

  it('refuses a database recorded at a newer version', async () => {
    await migrate(sqliteMigrationHost(db), [table('a'), table('b')], 'test store');
    await expect(migrate(sqliteMigrationHost(db), [table('a')], 'test store')).rejects.toMatchObject({
      code: 'ERR_STORE',
      message: 'The test store has schema version 2, newer than this Conveyor knows (1)',
      hint: expect.stringContaining('at least as new'),
    });
  });

  it('refuses a database whose recorded step names differ', async () => {
    await migrate(sqliteMigrationHost(db), [table('a')], 'test store');
    await expect(migrate(sqliteMigrationHost(db), [table('z')], 'test store')).rejects.toMatchObject({
      code: 'ERR_STORE',
      message: expect.stringContaining('recorded migration 1 as "create-a", but this Conveyor expects "create-z"'),
    });
  });

  it('refuses a step list with duplicate names', async () => {
    await expect(migrate(sqliteMigrationHost(db), [table('a'), table('a')], 'test store')).rejects.toMatchObject({ code: 'ERR_INTERNAL' });
  });
});
