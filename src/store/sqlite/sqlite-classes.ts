/** Class bindings on SQLite: one row per registered class, list-valued fields kept as JSON. */
import type Database from 'better-sqlite3';
import type { ClassBinding, ComponentKind, DeclaredSetting } from '../../core/components.ts';
import type { ClassRepository } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

interface ClassRow {
  name: string;
  kind: ComponentKind;
  runtime: 'python' | 'builtin';
  module: string | null;
  class_name: string | null;
  classpaths: string;
  settings: string;
  adapter_type: string | null;
  updated_at: number;
}

const columns = 'name, kind, runtime, module, class_name, classpaths, settings, adapter_type, updated_at';

export class SqliteClasses implements ClassRepository {
  readonly #ctx: SqliteContext;
  readonly #list: Database.Statement<[number], ClassRow>;
  readonly #get: Database.Statement<[number, string], ClassRow>;
  readonly #put: Database.Statement<Record<string, unknown>>;
  readonly #delete: Database.Statement<[number, string]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    const db = ctx.db;
    this.#list = db.prepare(`SELECT ${columns} FROM class_bindings WHERE ns_id = ? ORDER BY name`);
    this.#get = db.prepare(`SELECT ${columns} FROM class_bindings WHERE ns_id = ? AND name = ?`);
    this.#put = db.prepare(`
      INSERT OR REPLACE INTO class_bindings (ns_id, ${columns})
      VALUES (@nsId, @name, @kind, @runtime, @module, @className, @classpaths, @settings, @adapterType, @updatedAt)`);
    this.#delete = db.prepare('DELETE FROM class_bindings WHERE ns_id = ? AND name = ?');
  }

  list(namespace: string): Promise<ClassBinding[]> {
    return this.#ctx.run('list class bindings', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      return nsId === undefined ? [] : this.#list.all(nsId).map(toBinding);
    });
  }

  get(namespace: string, name: string): Promise<ClassBinding | null> {
    return this.#ctx.run('read a class binding', () => {
      const nsId = this.#ctx.namespaceId(namespace);
      const row = nsId === undefined ? undefined : this.#get.get(nsId, name);
      return row === undefined ? null : toBinding(row);
    });
  }

  put(namespace: string, binding: ClassBinding): Promise<void> {
    return this.#ctx.run('save a class binding', () => this.putRow(this.#ctx.requireNamespace(namespace), binding));
  }

  /** The write itself, for callers that hold a transaction (a migration's registrations). */
  putRow(nsId: number, binding: ClassBinding): void {
    this.#put.run({
      nsId,
      name: binding.name,
      kind: binding.kind,
      runtime: binding.runtime,
      module: binding.module,
      className: binding.className,
      classpaths: JSON.stringify(binding.classpaths),
      settings: JSON.stringify(binding.settings),
      adapterType: binding.adapterType,
      updatedAt: binding.updatedAt,
    });
  }

  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('delete a class binding', () => {
      this.#delete.run(this.#ctx.requireNamespace(namespace), name);
    });
  }
}

function toBinding(row: ClassRow): ClassBinding {
  return {
    name: row.name,
    kind: row.kind,
    runtime: row.runtime,
    module: row.module,
    className: row.class_name,
    classpaths: JSON.parse(row.classpaths) as string[],
    settings: JSON.parse(row.settings) as DeclaredSetting[],
    adapterType: row.adapter_type,
    updatedAt: row.updated_at,
  };
}
