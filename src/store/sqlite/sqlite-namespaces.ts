/** Namespaces on SQLite. Names are kept exactly as given (the engine decides about case). */
import type Database from 'better-sqlite3';
import { assertNamespaceName } from '../namespace-name.ts';
import type { NamespaceRepository } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

export class SqliteNamespaces implements NamespaceRepository {
  readonly #ctx: SqliteContext;
  readonly #list: Database.Statement<[], { name: string }>;
  readonly #create: Database.Statement<[string, number]>;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
    this.#list = ctx.db.prepare('SELECT name FROM namespaces ORDER BY name');
    this.#create = ctx.db.prepare('INSERT INTO namespaces (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
  }

  list(): Promise<string[]> {
    return this.#ctx.run('list namespaces', () => this.#list.all().map((row) => row.name));
  }

  exists(name: string): Promise<boolean> {
    return this.#ctx.run('read a namespace', () => this.#ctx.namespaceId(name) !== undefined);
  }

  create(name: string): Promise<void> {
    return this.#ctx.run('create a namespace', () => {
      assertNamespaceName(name);
      this.#create.run(name, Date.now());
    });
  }
}
