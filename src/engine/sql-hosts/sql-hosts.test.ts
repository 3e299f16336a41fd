import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { adminQuery, describePg, dropSchema, pgUrl, uniqueSchema } from '../../store/postgres/pg-test-support.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { numberPlaceholders } from './postgres-connection.ts';
import { describeSqlHost, parseSqlHosts } from './sql-host-config.ts';
import { SqlHosts } from './sql-hosts.ts';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('resolved');
    },
    (e: unknown) => e as Error,
  );
}

describe('sqlHosts in conveyor.yaml', () => {
  it('reads SQLite files (relative to the home, with or without sqlite:) and PostgreSQL URLs per namespace', () => {
    expect(
      parseSqlHosts({ USER: { default: 'data/ref.db', abs: 'sqlite:/srv/x.db', billing: 'postgresql://r:secret@db:5432/bill' } }, '/home/c', 'conveyor.yaml'),
    ).toEqual({
      USER: {
        default: { kind: 'sqlite', path: '/home/c/data/ref.db' },
        abs: { kind: 'sqlite', path: '/srv/x.db' },
        billing: { kind: 'postgres', url: 'postgresql://r:secret@db:5432/bill' },
      },
    });
  });

  it('refuses a value that is not a map of maps of non-empty texts, naming the place', () => {
    const message = (value: unknown): string => {
      try {
        parseSqlHosts(value, '/h', 'conveyor.yaml');
        return 'accepted';
      } catch (error) {
        expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
        return (error as Error).message;
      }
    };
    expect(message(['x'])).toBe('conveyor.yaml: sqlHosts must map namespaces to connections, got ["x"]');
    expect(message({ USER: 'a.db' })).toBe('conveyor.yaml: sqlHosts .USER must map connection names to a database, got "a.db"');
    expect(message({ USER: { default: 3 } })).toBe('conveyor.yaml: sqlHosts .USER.default must be an SQLite file or a postgres:// URL');
    expect(message({ USER: { 'bad name': 'a.db' } })).toBe('conveyor.yaml: sqlHosts .USER: "bad name" is not a connection name (letters, digits, _ . -)');
  });

  it('describes a connection without its password', () => {
    expect(describeSqlHost({ kind: 'postgres', url: 'postgres://reader:secret@db.example:5433/billing' })).toBe('PostgreSQL db.example:5433/billing');
    expect(describeSqlHost({ kind: 'sqlite', path: '/srv/ref.db' })).toBe('SQLite /srv/ref.db');
  });
});

describe('numbered placeholders for PostgreSQL', () => {
  it('numbers ? outside quoted text', () => {
    expect(numberPlaceholders(`SELECT a FROM t WHERE b = ? AND c = '?' AND "d?" = ? OR e = 'it''s ?'`)).toBe(
      `SELECT a FROM t WHERE b = $1 AND c = '?' AND "d?" = $2 OR e = 'it''s ?'`,
    );
  });
});

describe('SQL hosts on SQLite', () => {
  let dir: ReturnType<typeof tempDir>;
  let hosts: SqlHosts;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = join(dir.path, 'ref.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, photo BLOB);
      INSERT INTO people VALUES (1, 'Ada', 36, NULL), (2, 'Alan', 41, x'6869');`);
    db.close();
    hosts = new SqlHosts({ USER: { default: { kind: 'sqlite', path: file } } });
  });
  afterEach(async () => {
    await hosts.close();
    dir.remove();
  });

  it('gives the first row, as many values as INTO asks for, or nothing', async () => {
    expect(await hosts.runSql('USER', 'default', { text: 'SELECT name, age, photo FROM people WHERE id = ?', params: [2], columns: 2 })).toEqual(['Alan', 41]);
    expect(await hosts.runSql('USER', 'default', { text: 'SELECT photo FROM people WHERE id = ?', params: [2], columns: 1 })).toEqual(['hi']);
    expect(await hosts.runSql('USER', 'default', { text: 'SELECT name FROM people WHERE id = ?', params: [9], columns: 1 })).toBeUndefined();
  });

  it('cannot write, whatever the statement', async () => {
    const error = await rejection(hosts.runSql('USER', 'default', { text: "INSERT INTO people (name) VALUES ('Eve')", params: [], columns: 0 }));
    expect(error.message).toMatch(/only SELECT|readonly/i);
    const direct = new Database(file, { readonly: true });
    expect(direct.prepare('SELECT count(*) AS n FROM people').get()).toEqual({ n: 2 });
    direct.close();
  });

  it('names the connection and the namespace when it is not configured', async () => {
    const missing = await rejection(hosts.runSql('USER', 'billing', { text: 'SELECT 1', params: [], columns: 1 }));
    expect(isConveyorError(missing, 'ERR_CONFIG')).toBe(true);
    expect(missing.message).toBe('SQL host billing is not configured in namespace USER (it has default; see sqlHosts in conveyor.yaml)');
    const none = await rejection(hosts.runSql('OTHER', 'default', { text: 'SELECT 1', params: [], columns: 1 }));
    expect(none.message).toBe('SQL host default is not configured in namespace OTHER (it has none; see sqlHosts in conveyor.yaml)');
  });

  it('says which connection cannot be opened (a file that does not exist is never created)', async () => {
    const absent = join(dir.path, 'absent.db');
    const missingFile = new SqlHosts({ USER: { default: { kind: 'sqlite', path: absent } } });
    const error = await rejection(missingFile.runSql('USER', 'default', { text: 'SELECT 1', params: [], columns: 1 }));
    expect(error.message).toMatch(new RegExp(`^SQL host default \\(SQLite ${absent}\\) cannot be opened: `));
    await missingFile.close();
  });

  it('lists the connections of a namespace without secrets', () => {
    expect(hosts.list('USER')).toEqual([{ name: 'default', description: `SQLite ${file}` }]);
    expect(hosts.list('OTHER')).toEqual([]);
  });
});

describePg('SQL hosts on PostgreSQL', () => {
  const schema = uniqueSchema('r3sql');
  let hosts: SqlHosts;
  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    await adminQuery(`CREATE TABLE ${schema}.people (id int PRIMARY KEY, name text, born date, score numeric, big bigint)`);
    await adminQuery(`INSERT INTO ${schema}.people VALUES (1, 'Ada', '1815-12-10', 9.5, 9007199254740993)`);
    await adminQuery(`CREATE SEQUENCE ${schema}.counter`);
  });
  afterAll(async () => {
    await dropSchema(schema);
  });
  beforeEach(() => {
    hosts = new SqlHosts({ USER: { reporting: { kind: 'postgres', url: pgUrl } } });
  });
  afterEach(async () => {
    await hosts.close();
  });

  it('gives the first row with ? placeholders bound in order', async () => {
    const row = await hosts.runSql('USER', 'reporting', {
      text: `SELECT name, score, big FROM ${schema}.people WHERE id = ? AND name <> ?`,
      params: [1, 'x'],
      columns: 3,
    });
    expect(row).toEqual(['Ada', '9.5', '9007199254740993']);
    expect(await hosts.runSql('USER', 'reporting', { text: `SELECT name FROM ${schema}.people WHERE id = ?`, params: [2], columns: 1 })).toBeUndefined();
  });

  it('runs every statement in a read-only transaction', async () => {
    const error = await rejection(
      hosts.runSql('USER', 'reporting', { text: `INSERT INTO ${schema}.people (id, name) VALUES (5, 'Eve') RETURNING id`, params: [], columns: 1 }),
    );
    expect(error.message).toMatch(/read-only transaction/);
    const sequence = await rejection(hosts.runSql('USER', 'reporting', { text: `SELECT nextval('${schema}.counter')`, params: [], columns: 1 }));
    expect(sequence.message).toMatch(/read-only transaction/);
    expect(await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.people`)).toEqual([{ n: 1 }]);
    // The connection is still usable after a refused statement.
    expect(await hosts.runSql('USER', 'reporting', { text: 'SELECT 1 + ?', params: [1], columns: 1 })).toEqual([2]);
  });
});
