/** The PostgreSQL (scale-out) store driver: the only entry point other modules import. */
export { openPostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { PgNotifier, type NotifierOptions } from './notifier.ts';
