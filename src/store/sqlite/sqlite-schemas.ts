/** JSON schemas (DTL doc types) on SQLite, one row per name. */
import type Database from 'better-sqlite3';
import type { SchemaRepository, StoredSchema } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

const columns = 'name, category, schema, updated_at AS updatedAt';

export class SqliteSchemas implements SchemaRepository {
  readonly #ctx: SqliteContext;
  readonly #list: Database.Statement<[number], StoredSchema>;
  readonly #get: Database.Statement<[number, string], StoredSchema>;
  readonly #put: Database.Statement<[number, string, string, string, number]>;
  readonly #delete: Database.Statement<[number, string]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#list = db.prepare(`SELECT ${columns} FROM schemas WHERE ns_id = ? ORDER BY name`);
    this.#get = db.prepare(`SELECT ${columns} FROM schemas WHERE ns_id = ? AND name = ?`);
    this.#put = db.prepare('INSERT OR REPLACE INTO schemas (ns_id, name, category, schema, updated_at) VALUES (?, ?, ?, ?, ?)');
    this.#delete = db.prepare('DELETE FROM schemas WHERE ns_id = ? AND name = ?');
  }

  list(namespace: string): Promise<StoredSchema[]> {
    return this.#ctx.run('list schemas', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#list.all(nsId);
    });
  }

  get(namespace: string, name: string): Promise<StoredSchema | null> {
    return this.#ctx.run('read a schema', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return (nsId === undefined ? undefined : this.#get.get(nsId, name)) ?? null;
    });
  }

  put(namespace: string, schema: Omit<StoredSchema, 'updatedAt'>): Promise<void> {
    return this.#ctx.run('save a schema', () => this.putRow(this.#ctx.requireNamespace(namespace), schema));
  }

  /** The write itself, for callers that hold a transaction (a migration's registrations). */
  putRow(nsId: number, schema: Omit<StoredSchema, 'updatedAt'>): void {
    this.#put.run(nsId, schema.name, schema.category, schema.schema, Date.now());
  }

  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('delete a schema', () => {
      this.#delete.run(this.#ctx.requireNamespace(namespace), name);
    });
  }
}
