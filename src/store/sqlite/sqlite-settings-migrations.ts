/**
 * A settings.py migration on SQLite: its registrations in one transaction, and the journal of
 * package switches (`package_swaps`) that makes `PUT /migrate` all-or-nothing across kill -9.
 */
import type Database from 'better-sqlite3';
import type { MigrationRegistrations, PackageSwap, SettingsMigrationRepository } from '../store.ts';
import { unknownSwap } from '../unknown-swap.ts';
import type { SqliteClasses } from './sqlite-classes.ts';
import type { SqliteContext } from './sqlite-context.ts';
import type { SqliteProductions } from './sqlite-productions.ts';
import type { SqliteSchemas } from './sqlite-schemas.ts';

interface SwapRow {
  id: string;
  owner: string;
  folder: string;
  package_name: string;
  staging: string;
  committed: number;
  created_at: number;
}

/** The repositories whose rows a migration writes. */
export interface RegistrationWriters {
  classes: SqliteClasses;
  schemas: SqliteSchemas;
  productions: SqliteProductions;
}

export class SqliteSettingsMigrations implements SettingsMigrationRepository {
  readonly #ctx: SqliteContext;
  readonly #writers: RegistrationWriters;
  readonly #stage: Database.Statement<[string, string, string, string, string, number]>;
  readonly #markCommitted: Database.Statement<[string]>;
  readonly #swaps: Database.Statement<[string], SwapRow>;
  readonly #forget: Database.Statement<[string]>;

  constructor(ctx: SqliteContext, writers: RegistrationWriters) {
    this.#ctx = ctx;
    this.#writers = writers;
    const db = ctx.db;
    this.#stage = db.prepare('INSERT INTO package_swaps (id, owner, folder, package_name, staging, committed, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)');
    this.#markCommitted = db.prepare('UPDATE package_swaps SET committed = 1 WHERE id = ?');
    this.#swaps = db.prepare(
      'SELECT id, owner, folder, package_name, staging, committed, created_at FROM package_swaps WHERE owner = ? ORDER BY created_at, id',
    );
    this.#forget = db.prepare('DELETE FROM package_swaps WHERE id = ?');
  }

  stageSwap(swap: Omit<PackageSwap, 'committed' | 'createdAt'>): Promise<void> {
    return this.#ctx.run('journal a package switch', () => {
      this.#stage.run(swap.id, swap.owner, swap.folder, swap.packageName, swap.staging, Date.now());
    });
  }

  commit(namespace: string, registrations: MigrationRegistrations, swapId: string | null): Promise<void> {
    return this.#ctx.write('save a migration', () => {
      const nsId = this.#ctx.requireNamespace(namespace);
      for (const binding of registrations.classes) this.#writers.classes.putRow(nsId, binding);
      for (const schema of registrations.schemas) this.#writers.schemas.putRow(nsId, schema);
      for (const production of registrations.productions) this.#writers.productions.putRow(nsId, production);
      // Last, so that an unknown switch undoes the writes above with the transaction.
      if (swapId !== null && this.#markCommitted.run(swapId).changes === 0) throw unknownSwap(swapId);
    });
  }

  swaps(owner: string): Promise<PackageSwap[]> {
    return this.#ctx.run('read the package switches', () => this.#swaps.all(owner).map(toSwap));
  }

  forgetSwap(id: string): Promise<void> {
    return this.#ctx.run('forget a package switch', () => {
      this.#forget.run(id);
    });
  }
}

function toSwap(row: SwapRow): PackageSwap {
  return {
    id: row.id,
    owner: row.owner,
    folder: row.folder,
    packageName: row.package_name,
    staging: row.staging,
    committed: row.committed === 1,
    createdAt: row.created_at,
  };
}
