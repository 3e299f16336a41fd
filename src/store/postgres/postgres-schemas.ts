/** JSON schemas (DTL doc types) on PostgreSQL, one row per name. */
import type { SchemaRepository, StoredSchema } from '../store.ts';
import type { Db, PostgresContext } from './postgres-context.ts';

export class PostgresSchemas implements SchemaRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  list(namespace: string): Promise<StoredSchema[]> {
    return this.#ctx.run('list schemas', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      return db.selectFrom('schemas').select(['name', 'category', 'schema', 'updated_at as updatedAt']).where('ns_id', '=', nsId).orderBy('name').execute();
    });
  }

  get(namespace: string, name: string): Promise<StoredSchema | null> {
    return this.#ctx.run('read a schema', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const row = await db
        .selectFrom('schemas')
        .select(['name', 'category', 'schema', 'updated_at as updatedAt'])
        .where('ns_id', '=', nsId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row ?? null;
    });
  }

  put(namespace: string, schema: Omit<StoredSchema, 'updatedAt'>): Promise<void> {
    return this.#ctx.run('save a schema', async (db) => putSchemaRow(db, await this.#ctx.requireNamespace(namespace), schema));
  }

  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('delete a schema', async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.deleteFrom('schemas').where('ns_id', '=', nsId).where('name', '=', name).execute();
    });
  }
}

/** The write itself, on the pool or inside a caller's transaction (a migration's registrations). */
export async function putSchemaRow(db: Db, nsId: number, schema: Omit<StoredSchema, 'updatedAt'>): Promise<void> {
  const row = { category: schema.category, schema: schema.schema, updated_at: Date.now() };
  await db
    .insertInto('schemas')
    .values({ ns_id: nsId, name: schema.name, ...row })
    .onConflict((oc) => oc.columns(['ns_id', 'name']).doUpdateSet(row))
    .execute();
}
