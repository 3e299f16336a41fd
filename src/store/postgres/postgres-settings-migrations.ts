/**
 * A settings.py migration on PostgreSQL: its registrations in one transaction, and the journal of
 * package switches (`package_swaps`) that makes `PUT /migrate` all-or-nothing across kill -9.
 */
import type { MigrationRegistrations, PackageSwap, SettingsMigrationRepository } from '../store.ts';
import { unknownSwap } from '../unknown-swap.ts';
import { putClassRow } from './postgres-classes.ts';
import type { PostgresContext } from './postgres-context.ts';
import { putProductionRow } from './postgres-productions.ts';
import { putSchemaRow } from './postgres-schemas.ts';

export class PostgresSettingsMigrations implements SettingsMigrationRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  stageSwap(swap: Omit<PackageSwap, 'committed' | 'createdAt'>): Promise<void> {
    return this.#ctx.run('journal a package switch', async (db) => {
      await db
        .insertInto('package_swaps')
        .values({ id: swap.id, owner: swap.owner, folder: swap.folder, package_name: swap.packageName, staging: swap.staging, created_at: Date.now() })
        .execute();
    });
  }

  commit(namespace: string, registrations: MigrationRegistrations, swapId: string | null): Promise<void> {
    return this.#ctx.write('save a migration', async (trx) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      for (const binding of registrations.classes) await putClassRow(trx, nsId, binding);
      for (const schema of registrations.schemas) await putSchemaRow(trx, nsId, schema);
      for (const production of registrations.productions) await putProductionRow(trx, nsId, production);
      if (swapId === null) return;
      // Last, so that an unknown switch rolls the writes above back with the transaction.
      const marked = await trx.updateTable('package_swaps').set({ committed: true }).where('id', '=', swapId).executeTakeFirst();
      if (marked.numUpdatedRows === 0n) throw unknownSwap(swapId);
    });
  }

  swaps(owner: string): Promise<PackageSwap[]> {
    return this.#ctx.run('read the package switches', async (db) => {
      const rows = await db.selectFrom('package_swaps').selectAll().where('owner', '=', owner).orderBy('created_at').orderBy('id').execute();
      return rows.map((row) => ({
        id: row.id,
        owner: row.owner,
        folder: row.folder,
        packageName: row.package_name,
        staging: row.staging,
        committed: row.committed,
        createdAt: Number(row.created_at),
      }));
    });
  }

  forgetSwap(id: string): Promise<void> {
    return this.#ctx.run('forget a package switch', async (db) => {
      await db.deleteFrom('package_swaps').where('id', '=', id).execute();
    });
  }
}
