/** Class bindings on PostgreSQL: one row per registered class, list-valued fields kept as JSON text. */
import type { Selectable } from 'kysely';
import type { ClassBinding, ComponentKind, DeclaredSetting } from '../../core/components.ts';
import type { ClassRepository } from '../store.ts';
import type { Db, PostgresContext } from './postgres-context.ts';
import type { ClassBindingsTable } from './postgres-schema.ts';

const columns = ['name', 'kind', 'runtime', 'module', 'class_name', 'classpaths', 'settings', 'adapter_type', 'updated_at'] as const;

export class PostgresClasses implements ClassRepository {
  readonly #ctx: PostgresContext;

  constructor(ctx: PostgresContext) {
    this.#ctx = ctx;
  }

  list(namespace: string): Promise<ClassBinding[]> {
    return this.#ctx.run('list class bindings', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const rows = await db.selectFrom('class_bindings').select(columns).where('ns_id', '=', nsId).orderBy('name').execute();
      return rows.map(toBinding);
    });
  }

  get(namespace: string, name: string): Promise<ClassBinding | null> {
    return this.#ctx.run('read a class binding', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const row = await db.selectFrom('class_bindings').select(columns).where('ns_id', '=', nsId).where('name', '=', name).executeTakeFirst();
      return row === undefined ? null : toBinding(row);
    });
  }

  put(namespace: string, binding: ClassBinding): Promise<void> {
    return this.#ctx.run('save a class binding', async (db) => putClassRow(db, await this.#ctx.requireNamespace(namespace), binding));
  }

  delete(namespace: string, name: string): Promise<void> {
    return this.#ctx.run('delete a class binding', async (db) => {
      const nsId = await this.#ctx.requireNamespace(namespace);
      await db.deleteFrom('class_bindings').where('ns_id', '=', nsId).where('name', '=', name).execute();
    });
  }
}

function toBinding(row: Pick<Selectable<ClassBindingsTable>, (typeof columns)[number]>): ClassBinding {
  return {
    name: row.name,
    kind: row.kind as ComponentKind,
    runtime: row.runtime as ClassBinding['runtime'],
    module: row.module,
    className: row.class_name,
    classpaths: JSON.parse(row.classpaths) as string[],
    settings: JSON.parse(row.settings) as DeclaredSetting[],
    adapterType: row.adapter_type,
    updatedAt: row.updated_at,
  };
}

/** The write itself, on the pool or inside a caller's transaction (a migration's registrations). */
export async function putClassRow(db: Db, nsId: number, binding: ClassBinding): Promise<void> {
  const row = {
    kind: binding.kind,
    runtime: binding.runtime,
    module: binding.module,
    class_name: binding.className,
    classpaths: JSON.stringify(binding.classpaths),
    settings: JSON.stringify(binding.settings),
    adapter_type: binding.adapterType,
    updated_at: binding.updatedAt,
  };
  await db
    .insertInto('class_bindings')
    .values({ ns_id: nsId, name: binding.name, ...row })
    .onConflict((oc) => oc.columns(['ns_id', 'name']).doUpdateSet(row))
    .execute();
}
