/** Routing rule classes on PostgreSQL (as transforms): every put adds a version; the newest version is the one in force. */
import type { StoredRule, RuleRepository } from '../store.ts';
import type { PostgresContext } from './postgres-context.ts';

const columns = ['name', 'source', 'version', 'updated_at as updatedAt'] as const;

export class PostgresRules implements RuleRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  list(namespace: string): Promise<StoredRule[]> {
    return this.#ctx.run('list rules', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      // DISTINCT ON keeps the first row of each name in the ORDER BY: its newest version.
      return db.selectFrom('rule_versions').distinctOn('name').select(columns).where('ns_id', '=', nsId).orderBy('name').orderBy('version', 'desc').execute();
    });
  }

  get(namespace: string, name: string, version?: number): Promise<StoredRule | null> {
    return this.#ctx.run('read a rule', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      let query = db.selectFrom('rule_versions').select(columns).where('ns_id', '=', nsId).where('name', '=', name);
      query = version === undefined ? query.orderBy('version', 'desc').limit(1) : query.where('version', '=', version);
      return (await query.executeTakeFirst()) ?? null;
    });
  }

  /**
   * The next version is computed inside the INSERT; two nodes saving the same rule at once
   * would compute the same number, so the loser of that race (a key conflict) simply tries again.
   */
  put(namespace: string, name: string, source: string): Promise<StoredRule> {
    return this.#ctx.run('save a rule', async () => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      for (let attempt = 1; ; attempt += 1) {
        try {
          const { rows } = await this.#ctx.pool.query<StoredRule>(
            `INSERT INTO rule_versions (ns_id, name, version, source, updated_at)
             SELECT $1, $2, COALESCE(MAX(version), 0) + 1, $3, $4 FROM rule_versions WHERE ns_id = $1 AND name = $2
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
  history(namespace: string, name: string): Promise<StoredRule[]> {
    return this.#ctx.run('read a rule history', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      return db.selectFrom('rule_versions').select(columns).where('ns_id', '=', nsId).where('name', '=', name).orderBy('version').execute();
    });
  }

  /** Removes every version: a later put starts again at version 1. */
  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('delete a rule', async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.deleteFrom('rule_versions').where('ns_id', '=', nsId).where('name', '=', name).execute();
    });
  }
}
