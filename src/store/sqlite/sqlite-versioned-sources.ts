/**
 * Versioned source documents on SQLite — DTL transforms and routing rule classes, each kind in a table
 * of its own: every put adds a version; the newest version is the one in force.
 */
import type Database from 'better-sqlite3';
import type { StoredTransform, TransformRepository, VersionedKind } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

const columns = 'name, source, version, updated_at AS updatedAt';

export class SqliteVersionedSources implements TransformRepository {
  readonly #ctx: SqliteContext;
  readonly #noun: string;
  readonly #list: Database.Statement<[number], StoredTransform>;
  readonly #latest: Database.Statement<[number, string], StoredTransform>;
  readonly #version: Database.Statement<[number, string, number], StoredTransform>;
  readonly #history: Database.Statement<[number, string], StoredTransform>;
  readonly #insert: Database.Statement<[number, string, number, string, number]>;
  readonly #delete: Database.Statement<[number, string]>;

  constructor(ctx: SqliteContext, { table, noun }: VersionedKind) {
    this.#ctx = ctx;
    this.#noun = noun;
    const db = ctx.db;
    this.#list = db.prepare(`
      SELECT ${columns} FROM ${table} t
      WHERE ns_id = ? AND version = (SELECT MAX(version) FROM ${table} v WHERE v.ns_id = t.ns_id AND v.name = t.name)
      ORDER BY name`);
    this.#latest = db.prepare(`SELECT ${columns} FROM ${table} WHERE ns_id = ? AND name = ? ORDER BY version DESC LIMIT 1`);
    this.#version = db.prepare(`SELECT ${columns} FROM ${table} WHERE ns_id = ? AND name = ? AND version = ?`);
    this.#history = db.prepare(`SELECT ${columns} FROM ${table} WHERE ns_id = ? AND name = ? ORDER BY version`);
    this.#insert = db.prepare(`INSERT INTO ${table} (ns_id, name, version, source, updated_at) VALUES (?, ?, ?, ?, ?)`);
    this.#delete = db.prepare(`DELETE FROM ${table} WHERE ns_id = ? AND name = ?`);
  }

  list(namespace: string): Promise<StoredTransform[]> {
    return this.#ctx.run(`list ${this.#noun}s`, () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#list.all(nsId);
    });
  }

  get(namespace: string, name: string, version?: number): Promise<StoredTransform | null> {
    return this.#ctx.run(`read a ${this.#noun}`, () => {
      const nsId = this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      return (version === undefined ? this.#latest.get(nsId, name) : this.#version.get(nsId, name, version)) ?? null;
    });
  }

  put(namespace: string, name: string, source: string): Promise<StoredTransform> {
    return this.#ctx.write(`save a ${this.#noun}`, () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      const version = (this.#latest.get(nsId, name)?.version ?? 0) + 1;
      const updatedAt = Date.now();
      this.#insert.run(nsId, name, version, source, updatedAt);
      return { name, source, version, updatedAt };
    });
  }

  /** Oldest version first. */
  history(namespace: string, name: string): Promise<StoredTransform[]> {
    return this.#ctx.run(`read a ${this.#noun} history`, () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#history.all(nsId, name);
    });
  }

  /** Removes every version: a later put starts again at version 1. */
  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run(`delete a ${this.#noun}`, () => {
      this.#delete.run(this.#ctx.requireNamespace(namespace), name);
    });
  }
}
