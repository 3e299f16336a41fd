/**
 * The SQLite schema, as ordered migration steps (step N = schema version N), and the host that
 * lets the shared runner (../migrator.ts) apply them. Append new steps; never edit a released one.
 *
 * Layout choices: namespaces are referred to by a small integer (`ns_id`) so the hot tables and
 * their indexes stay narrow. Message bodies live in their own table, so header scans (search,
 * queues, recovery) never page through multi-megabyte bodies. Hot tables (messages, bodies, log)
 * carry no foreign keys: the driver resolves namespace ids itself and FK checks would cost a
 * lookup per row; the cold tables do use them.
 */
import type Database from 'better-sqlite3';
import type { AppliedMigration, MigrationHost, MigrationStep } from '../migrator.ts';
import { statusIndexCondition } from '../status-indexes.ts';

type Db = Database.Database;

export const sqliteMigrations: readonly MigrationStep<Db>[] = [
  {
    name: 'namespaces-and-definitions',
    apply: (db) => {
      db.exec(`
        CREATE TABLE namespaces (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL UNIQUE,
          default_production TEXT,
          created_at INTEGER NOT NULL
        );
        INSERT INTO namespaces (name, created_at) VALUES ('USER', CAST(unixepoch('subsec') * 1000 AS INTEGER));

        CREATE TABLE productions (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          definition TEXT NOT NULL,
          auto_start INTEGER NOT NULL DEFAULT 0,
          last_start_time INTEGER,
          last_stop_time INTEGER,
          state TEXT NOT NULL DEFAULT 'stopped' CHECK (state IN ('running', 'stopped')),
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name)
        );

        CREATE TABLE class_bindings (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          kind TEXT NOT NULL,
          runtime TEXT NOT NULL,
          module TEXT,
          class_name TEXT,
          classpaths TEXT NOT NULL,
          settings TEXT NOT NULL,
          adapter_type TEXT,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name)
        );

        CREATE TABLE schemas (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          category TEXT NOT NULL,
          schema TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name)
        );

        -- Every version is kept: the newest is the transform in force, the rest is history.
        CREATE TABLE transform_versions (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          version INTEGER NOT NULL,
          source TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name, version)
        );

        -- A table of its own so that an empty lookup table still exists.
        CREATE TABLE lookup_tables (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name)
        );
        CREATE TABLE lookup_entries (
          ns_id INTEGER NOT NULL,
          table_name TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (ns_id, table_name, key),
          FOREIGN KEY (ns_id, table_name) REFERENCES lookup_tables (ns_id, name) ON DELETE CASCADE
        );
      `);
    },
  },
  {
    name: 'messages',
    apply: (db) => {
      db.exec(`
        CREATE TABLE messages (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          ns_id INTEGER NOT NULL,
          session_id INTEGER NOT NULL,
          parent_id INTEGER,
          corresponding_id INTEGER,
          kind TEXT NOT NULL CHECK (kind IN ('request', 'response')),
          source TEXT NOT NULL,
          target TEXT NOT NULL,
          response_required INTEGER NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'completed', 'error', 'discarded')),
          priority INTEGER NOT NULL,
          description TEXT NOT NULL,
          error TEXT,
          attempts INTEGER NOT NULL DEFAULT 0,
          classname TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          lease_owner TEXT,
          lease_until INTEGER
        );
        -- An index on (x) is ordered by (x, id): equality filters on these walk newest first, no sort.
        CREATE INDEX messages_by_namespace ON messages (ns_id);
        CREATE INDEX messages_by_status ON messages (ns_id, status);
        CREATE INDEX messages_by_target ON messages (ns_id, target, status);
        CREATE INDEX messages_by_session ON messages (session_id);
        CREATE INDEX messages_by_created ON messages (ns_id, created_at);

        CREATE TABLE message_bodies (
          message_id INTEGER PRIMARY KEY,
          encoding TEXT NOT NULL,
          data TEXT NOT NULL
        );
      `);
    },
  },
  {
    name: 'event-log',
    apply: (db) => {
      db.exec(`
        CREATE TABLE log_entries (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          ns_id INTEGER NOT NULL,
          type TEXT NOT NULL,
          config_name TEXT NOT NULL,
          job TEXT NOT NULL,
          message_id INTEGER,
          session_id INTEGER,
          source_class TEXT NOT NULL,
          source_method TEXT NOT NULL,
          text TEXT NOT NULL,
          time_logged INTEGER NOT NULL
        );
        CREATE INDEX log_by_namespace ON log_entries (ns_id);
        CREATE INDEX log_by_config_name ON log_entries (ns_id, config_name);
        CREATE INDEX log_by_session ON log_entries (session_id) WHERE session_id IS NOT NULL;
      `);
    },
  },
  {
    name: 'package-swaps',
    apply: (db) => {
      db.exec(`
        CREATE TABLE package_swaps (
          id TEXT PRIMARY KEY,
          owner TEXT NOT NULL,
          folder TEXT NOT NULL,
          package_name TEXT NOT NULL,
          staging TEXT NOT NULL,
          committed INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX package_swaps_by_owner ON package_swaps (owner, created_at);
      `);
    },
  },
  {
    // The sender's W3C traceparent (tracing on): a hop continues the trace of the span that sent it.
    // Nullable without default: existing rows are not rewritten.
    name: 'message-trace-context',
    apply: (db) => {
      db.exec('ALTER TABLE messages ADD COLUMN trace_parent TEXT');
    },
  },
  {
    // Alerts (docs/operations.md): one row per open alert; the partial unique index makes repeats of
    // an open alert count into it atomically.
    name: 'alerts',
    apply: (db) => {
      db.exec(`
        CREATE TABLE alerts (
          id INTEGER PRIMARY KEY,
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          source TEXT NOT NULL,
          category TEXT NOT NULL,
          alert_key TEXT NOT NULL,
          text TEXT NOT NULL,
          first_time INTEGER NOT NULL,
          last_time INTEGER NOT NULL,
          count INTEGER NOT NULL,
          acknowledged INTEGER NOT NULL DEFAULT 0,
          acknowledged_by TEXT,
          acknowledged_at INTEGER
        );
        CREATE UNIQUE INDEX alerts_open ON alerts (ns_id, source, category, alert_key) WHERE acknowledged = 0;
        CREATE INDEX alerts_by_time ON alerts (ns_id, last_time);
      `);
    },
  },
  {
    // Retention (docs/operations.md): a policy per namespace, and the event log by time so that a
    // purge walks only the entries older than its bound. (Messages already have (ns_id, created_at).)
    name: 'retention',
    apply: (db) => {
      db.exec(`
        CREATE TABLE retention_policies (
          ns_id INTEGER PRIMARY KEY REFERENCES namespaces (id),
          message_days REAL,
          log_days REAL,
          max_store_bytes INTEGER,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX log_by_time ON log_entries (ns_id, time_logged);
      `);
    },
  },
  {
    // Queue and message controls (docs/operations.md): suspended queues and the links of resent
    // messages. New tables only: the messages table (and its status CHECK) is left as it is.
    name: 'message-controls',
    apply: (db) => {
      db.exec(`
        CREATE TABLE queue_suspensions (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          item TEXT NOT NULL,
          suspended_by TEXT NOT NULL,
          suspended_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, item)
        );
        CREATE TABLE message_resends (
          resend_id INTEGER PRIMARY KEY,
          ns_id INTEGER NOT NULL,
          original_id INTEGER NOT NULL,
          target TEXT NOT NULL,
          edited INTEGER NOT NULL,
          by_user TEXT NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX message_resends_by_original ON message_resends (original_id);
      `);
    },
  },
  {
    // Routing rule classes (Ens.Rule.Definition), every version kept like transform_versions.
    name: 'routing-rules',
    apply: (db) => {
      db.exec(`
        CREATE TABLE rule_versions (
          ns_id INTEGER NOT NULL REFERENCES namespaces (id),
          name TEXT NOT NULL,
          version INTEGER NOT NULL,
          source TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (ns_id, name, version)
        );
      `);
    },
  },
  {
    // The status indexes without the completed messages (src/store/status-indexes.ts says why). One scan of
    // the table per index; the migration's transaction makes the swap all-or-nothing.
    name: 'status-indexes-without-completed',
    apply: (db) => {
      db.exec(`
        DROP INDEX messages_by_status;
        DROP INDEX messages_by_target;
        CREATE INDEX messages_by_status ON messages (ns_id, status) WHERE ${statusIndexCondition};
        CREATE INDEX messages_by_target ON messages (ns_id, target, status) WHERE ${statusIndexCondition};
      `);
    },
  },
  {
    // A large body passed on unchanged is stored once (shared-bodies.ts): a row that shares names
    // the row holding the text in data_of and keeps '' itself. Readers go through the view, which
    // puts the text back; the partial index finds the rows sharing a body that retention removes.
    // Adding a nullable column rewrites nothing, so the step is instant on any store.
    name: 'shared-bodies',
    apply: (db) => {
      db.exec(`
        ALTER TABLE message_bodies ADD COLUMN data_of INTEGER;
        CREATE INDEX message_bodies_by_holder ON message_bodies (data_of) WHERE data_of IS NOT NULL;
        CREATE VIEW message_body_texts AS
          SELECT b.message_id, b.encoding,
            CASE WHEN b.data_of IS NULL THEN b.data ELSE (SELECT h.data FROM message_bodies h WHERE h.message_id = b.data_of) END AS data
          FROM message_bodies b;
      `);
    },
  },
];

/** Runs migrations inside `BEGIN IMMEDIATE`, which takes the write lock before reading the version. */
export function sqliteMigrationHost(db: Db): MigrationHost<Db> {
  return {
    async transaction<T>(work: (ctx: Db) => Promise<T>): Promise<T> {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(db);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    async applied(ctx: Db): Promise<AppliedMigration[]> {
      ctx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      return ctx.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as AppliedMigration[];
    },
    async record(ctx: Db, migration: AppliedMigration, appliedAt: number): Promise<void> {
      ctx.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, appliedAt);
    },
  };
}
