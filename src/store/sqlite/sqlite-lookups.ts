/** Lookup tables on SQLite: a put replaces whole tables in one transaction. */
import type Database from 'better-sqlite3';
import type { LookupRepository } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

export class SqliteLookups implements LookupRepository {
  readonly #ctx: SqliteContext;
  readonly #tables: Database.Statement<[number], { name: string }>;
  readonly #exists: Database.Statement<[number, string], { name: string }>;
  readonly #entries: Database.Statement<[number, string], [string, string]>;
  readonly #putTable: Database.Statement<[number, string, number]>;
  readonly #clear: Database.Statement<[number, string]>;
  readonly #insert: Database.Statement<[number, string, string, string]>;
  readonly #delete: Database.Statement<[number, string]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#tables = db.prepare('SELECT name FROM lookup_tables WHERE ns_id = ? ORDER BY name');
    this.#exists = db.prepare('SELECT name FROM lookup_tables WHERE ns_id = ? AND name = ?');
    this.#entries = db
      .prepare<[number, string], [string, string]>('SELECT key, value FROM lookup_entries WHERE ns_id = ? AND table_name = ? ORDER BY key')
      .raw();
    this.#putTable = db.prepare(`
      INSERT INTO lookup_tables (ns_id, name, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (ns_id, name) DO UPDATE SET updated_at = excluded.updated_at`);
    this.#clear = db.prepare('DELETE FROM lookup_entries WHERE ns_id = ? AND table_name = ?');
    this.#insert = db.prepare('INSERT INTO lookup_entries (ns_id, table_name, key, value) VALUES (?, ?, ?, ?)');
    this.#delete = db.prepare('DELETE FROM lookup_tables WHERE ns_id = ? AND name = ?');
  }

  tables(namespace: string): Promise<string[]> {
    return this.#ctx.run('list lookup tables', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#tables.all(nsId).map((row) => row.name);
    });
  }

  /** Keys in sorted order. `Object.fromEntries` defines keys such as `__proto__` as plain entries. */
  get(namespace: string, table: string): Promise<Record<string, string> | null> {
    return this.#ctx.run('read a lookup table', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      if (nsId === undefined || this.#exists.get(nsId, table) === undefined) return null;
      return Object.fromEntries(this.#entries.all(nsId, table));
    });
  }

  put(namespace: string, table: string, entries: Record<string, string>): Promise<void> {
    return this.putMany(namespace, { [table]: entries });
  }

  putMany(namespace: string, tables: Record<string, Record<string, string>>): Promise<void> {
    return this.#ctx.write('save lookup tables', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const now = Date.now();
      for (const [table, entries] of Object.entries(tables)) {
        this.#putTable.run(nsId, table, now);
        this.#clear.run(nsId, table);
        for (const [key, value] of Object.entries(entries)) this.#insert.run(nsId, table, key, value);
      }
    });
  }

  /** The entries go with the table (ON DELETE CASCADE). */
  delete(namespace: string, table: string): Promise<void> {
    return this.#ctx.run('delete a lookup table', () => {
      this.#delete.run(this.#ctx.requireNamespace(namespace), table);
    });
  }
}
