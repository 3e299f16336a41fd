/** Namespaces on PostgreSQL. Names are kept exactly as given (the engine decides about case). */
import { assertNamespaceName } from '../namespace-name.ts';
import type { NamespaceRepository } from '../store.ts';
import type { PostgresContext } from './postgres-context.ts';

export class PostgresNamespaces implements NamespaceRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  list(): Promise<string[]> {
    return this.#ctx.run('list namespaces', async (db) => {
      const rows = await db.selectFrom('namespaces').select('name').orderBy('name').execute();
      return rows.map((row) => row.name);
    });
  }

  exists(name: string): Promise<boolean> {
    return this.#ctx.run('read a namespace', async () => (await this.#ctx.namespaceId(name)) !== undefined);
  }

  create(name: string): Promise<void> {
    return this.#ctx.run('create a namespace', async (db) => {
      assertNamespaceName(name);
      await db
        .insertInto('namespaces')
        .values({ name, created_at: Date.now() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    });
  }
}
