/** Lookup tables on PostgreSQL: a put replaces whole tables in one transaction. */
import type { LookupRepository } from '../store.ts';
import type { PostgresContext } from './postgres-context.ts';

/** Rows per INSERT when a table is replaced: well under PostgreSQL's 65535 bind parameters. */
const insertChunk = 5000;

export class PostgresLookups implements LookupRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  tables(namespace: string): Promise<string[]> {
    return this.#ctx.run('list lookup tables', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const rows = await db.selectFrom('lookup_tables').select('name').where('ns_id', '=', nsId).orderBy('name').execute();
      return rows.map((row) => row.name);
    });
  }

  /** Keys in sorted order (byte order: the column is COLLATE "C"). `Object.fromEntries` defines keys such as `__proto__` as plain entries. */
  get(namespace: string, table: string): Promise<Record<string, string> | null> {
    return this.#ctx.run('read a lookup table', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const exists = await db.selectFrom('lookup_tables').select('name').where('ns_id', '=', nsId).where('name', '=', table).executeTakeFirst();
      if (exists === undefined) return null;
      const { rows } = await this.#ctx.pool.query<{ key: string; value: string }>(
        'SELECT key, value FROM lookup_entries WHERE ns_id = $1 AND table_name = $2 ORDER BY key',
        [nsId, table],
      );
      return Object.fromEntries(rows.map((row) => [row.key, row.value]));
    });
  }

  put(namespace: string, table: string, entries: Record<string, string>): Promise<void> {
    return this.putMany(namespace, { [table]: entries });
  }

  /**
   * Each table row is written first: its row lock makes concurrent puts of one table take turns.
   * Tables are taken in name order, so two imports of overlapping tables cannot deadlock.
   */
  putMany(namespace: string, tables: Record<string, Record<string, string>>): Promise<void> {
    return this.#ctx.write('save lookup tables', async (trx) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const now = Date.now();
      for (const table of Object.keys(tables).sort()) {
        await trx
          .insertInto('lookup_tables')
          .values({ ns_id: nsId, name: table, updated_at: now })
          .onConflict((oc) => oc.columns(['ns_id', 'name']).doUpdateSet({ updated_at: now }))
          .execute();
        await trx.deleteFrom('lookup_entries').where('ns_id', '=', nsId).where('table_name', '=', table).execute();
        const rows = Object.entries(tables[table]!).map(([key, value]) => ({ ns_id: nsId, table_name: table, key, value }));
        for (let start = 0; start < rows.length; start += insertChunk) {
          await trx
            .insertInto('lookup_entries')
            .values(rows.slice(start, start + insertChunk))
            .execute();
        }
      }
    });
  }

  /** The entries go with the table (ON DELETE CASCADE). */
  delete(namespace: string, table: string): Promise<void> {
    return this.#ctx.run('delete a lookup table', async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.deleteFrom('lookup_tables').where('ns_id', '=', nsId).where('name', '=', table).execute();
    });
  }
}
