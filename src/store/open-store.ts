/**
 * The one place that picks a store driver. `url` names a PostgreSQL database (scale-out); without
 * it the embedded SQLite store lives at `sqlitePath`.
 */
import { ConveyorError } from '../core/errors.ts';
import { openSqliteStore, type Durability } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** `postgres://…` or `postgresql://…` selects PostgreSQL. */
  url?: string;
  /** The SQLite file (created, with its folder, when missing). Required without `url`. */
  sqlitePath?: string;
  /** SQLite only: `full` (default) survives power loss, `normal` survives a process crash. */
  durability?: Durability;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.url !== undefined && options.url !== '') {
    if (/^postgres(ql)?:\/\//i.test(options.url)) {
      // Loaded only when asked for: most servers never need pg and its pool.
      const { openPostgresStore } = await import('./postgres/index.ts');
      return openPostgresStore(options.url);
    }
    throw new ConveyorError('ERR_CONFIG', `Unsupported store URL "${redactPassword(options.url)}"`, {
      hint: 'Use postgres://user:password@host:port/database, or no URL for the embedded SQLite store.',
    });
  }
  if (options.sqlitePath === undefined || options.sqlitePath === '') {
    throw new ConveyorError('ERR_CONFIG', 'No store configured: give a PostgreSQL URL or a SQLite file path');
  }
  return openSqliteStore({ path: options.sqlitePath, durability: options.durability ?? 'full' });
}

/** Store URLs carry credentials; error messages must not. */
function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}
