/** Production definitions and their durable state, plus each namespace's default production. */
import { ConveyorError } from '../../core/errors.ts';
import type { ProductionDefinition, ProductionRecord } from '../../core/production.ts';
import type { ProductionRepository, ProductionStatePatch } from '../store.ts';
import type { Db, PostgresContext } from './postgres-context.ts';
import type { ProductionsTable } from './postgres-schema.ts';
import type { Selectable, Updateable } from 'kysely';

const columns = ['name', 'definition', 'auto_start', 'last_start_time', 'last_stop_time', 'state', 'updated_at'] as const;

export class PostgresProductions implements ProductionRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  list(namespace: string): Promise<ProductionRecord[]> {
    return this.#ctx.run('list productions', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const rows = await db.selectFrom('productions').select(columns).where('ns_id', '=', nsId).orderBy('name').execute();
      return rows.map((row) => toRecord(namespace, row));
    });
  }

  get(namespace: string, name: string): Promise<ProductionRecord | null> {
    return this.#ctx.run('read a production', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const row = await db.selectFrom('productions').select(columns).where('ns_id', '=', nsId).where('name', '=', name).executeTakeFirst();
      return row === undefined ? null : toRecord(namespace, row);
    });
  }

  put(namespace: string, definition: ProductionDefinition): Promise<void> {
    return this.#ctx.run('save a production', async (db) => putProductionRow(db, await this.#ctx.requireNamespace(namespace), definition));
  }

  /** Also forgets the namespace's default when it named this production. */
  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.write('delete a production', async (trx) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await trx.deleteFrom('productions').where('ns_id', '=', nsId).where('name', '=', name).execute();
      await trx.updateTable('namespaces').set({ default_production: null }).where('id', '=', nsId).where('default_production', '=', name).execute();
    });
  }

  setState(namespace: string, name: string, patch: ProductionStatePatch): Promise<void> {
    const changes: Updateable<ProductionsTable> = {};
    if (patch.state !== undefined) changes.state = patch.state;
    if (patch.lastStartTime !== undefined) changes.last_start_time = patch.lastStartTime;
    if (patch.lastStopTime !== undefined) changes.last_stop_time = patch.lastStopTime;
    return this.#update('save a production state', namespace, name, changes);
  }

  setAutoStart(namespace: string, name: string, autoStart: boolean): Promise<void> {
    return this.#update('save a production auto-start', namespace, name, { auto_start: autoStart });
  }

  getDefault(namespace: string): Promise<string | null> {
    return this.#ctx.run('read the default production', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const row = await db.selectFrom('namespaces').select('default_production').where('id', '=', nsId).executeTakeFirst();
      return row?.default_production ?? null;
    });
  }

  /** Any name is accepted: the default may name a production that is created later. */
  setDefault(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('save the default production', async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.updateTable('namespaces').set({ default_production: name }).where('id', '=', nsId).execute();
    });
  }

  #update(action: string, namespace: string, name: string, changes: Updateable<ProductionsTable>): Promise<void> {
    return this.#ctx.run(action, async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      const result = await db
        .updateTable('productions')
        .set({ ...changes, updated_at: Date.now() })
        .where('ns_id', '=', nsId)
        .where('name', '=', name)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) {
        throw new ConveyorError('ERR_PRODUCTION_NOT_FOUND', `Production "${name}" does not exist in namespace "${namespace}"`);
      }
    });
  }
}

function toRecord(namespace: string, row: Pick<Selectable<ProductionsTable>, (typeof columns)[number]>): ProductionRecord {
  return {
    namespace,
    name: row.name,
    definition: JSON.parse(row.definition) as ProductionDefinition,
    autoStart: row.auto_start,
    lastStartTime: row.last_start_time,
    lastStopTime: row.last_stop_time,
    state: row.state,
    updatedAt: row.updated_at,
  };
}

/** The write itself, on the pool or inside a caller's transaction (a migration's registrations). */
export async function putProductionRow(db: Db, nsId: number, definition: ProductionDefinition): Promise<void> {
  const text = JSON.stringify(definition);
  const now = Date.now();
  await db
    .insertInto('productions')
    .values({ ns_id: nsId, name: definition.name, definition: text, updated_at: now, last_start_time: null, last_stop_time: null })
    .onConflict((oc) => oc.columns(['ns_id', 'name']).doUpdateSet({ definition: text, updated_at: now }))
    .execute();
}
