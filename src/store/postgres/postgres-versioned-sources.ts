/**
 * Versioned source documents on PostgreSQL — DTL transforms and routing rule classes, each kind in a
 * table of its own: every put adds a version; the newest version is the one in force.
 */
import type { StoredTransform, TransformRepository, VersionedKind } from '../store.ts';
import type { PostgresContext } from './postgres-context.ts';

const columns = ['name', 'source', 'version', 'updated_at as updatedAt'] as const;

export class PostgresVersionedSources implements TransformRepository {
  readonly #ctx: PostgresContext;
  // Typed as one of the tables: both have the same columns, and kysely cannot call methods on a union of table builders.
  readonly #table: 'transform_versions';
  readonly #noun: string;

  constructor(ctx: PostgresContext, { table, noun }: VersionedKind) {
    this.#ctx = ctx;
    this.#table = table as 'transform_versions';
    this.#noun = noun;
  }

  list(namespace: string): Promise<StoredTransform[]> {
    return this.#ctx.run(`list ${this.#noun}s`, async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      // DISTINCT ON keeps the first row of each name in the ORDER BY: its newest version.
      return db.selectFrom(this.#table).distinctOn('name').select(columns).where('ns_id', '=', nsId).orderBy('name').orderBy('version', 'desc').execute();
    });
  }

  get(namespace: string, name: string, version?: number): Promise<StoredTransform | null> {
    return this.#ctx.run(`read a ${this.#noun}`, async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      let query = db.selectFrom(this.#table).select(columns).where('ns_id', '=', nsId).where('name', '=', name);
      query = version === undefined ? query.orderBy('version', 'desc').limit(1) : query.where('version', '=', version);
      return (await query.executeTakeFirst()) ?? null;
    });
  }

  /**
   * The next version is computed inside the INSERT; two nodes saving the same document at once
   * would compute the same number, so the loser of that race (a key conflict) simply tries again.
   */
  put(namespace: string, name: string, source: string): Promise<StoredTransform> {
    return this.#ctx.run(`save a ${this.#noun}`, async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      for (let attempt = 1; ; attempt += 1) {
        try {
          const { rows } = await this.#ctx.pool.query<StoredTransform>(
            `INSERT INTO ${this.#table} (ns_id, name, version, source, updated_at)
             SELECT $1, $2, COALESCE(MAX(version), 0) + 1, $3, $4 FROM ${this.#table} WHERE ns_id = $1 AND name = $2
             RETURNING name, source, version, updated_at AS "updatedAt"`,
            [nsId, name, source, Date.now()],
          );
          return rows[0]!;
        } catch (error) {
          if ((error as { code?: unknown }).code !== '23505' || attempt >= 5) throw error;
        }
      }
    });
  }

  /** Oldest version first. */
  history(namespace: string, name: string): Promise<StoredTransform[]> {
    return this.#ctx.run(`read a ${this.#noun} history`, async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      return db.selectFrom(this.#table).select(columns).where('ns_id', '=', nsId).where('name', '=', name).orderBy('version').execute();
    });
  }

  /** Removes every version: a later put starts again at version 1. */
  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run(`delete a ${this.#noun}`, async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.deleteFrom(this.#table).where('ns_id', '=', nsId).where('name', '=', name).execute();
    });
  }
}
