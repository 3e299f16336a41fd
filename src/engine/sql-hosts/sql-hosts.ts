/**
 * The SQL hosts of the server: for each namespace, its named read-only connections from
 * conveyor.yaml (`sqlHosts`), opened when first used and kept. `<sql>` in a transform runs on the
 * connection its run names (default `default`): the `SqlHost` setting of a transform process, the
 * `sqlHost` of a test run. None are configured by default; a name that is not configured is an
 * error naming it and the namespace.
 */
import { ConveyorError } from '../../core/errors.ts';
import type { SqlQuery } from '../../dtl/index.ts';
import { PostgresConnection } from './postgres-connection.ts';
import type { SqlConnection, SqlRow } from './sql-connection.ts';
import { describeSqlHost, type SqlHostsConfig, type SqlHostSpec } from './sql-host-config.ts';
import { SqliteConnection } from './sqlite-connection.ts';

/** The connection a run uses when it names none. */
export const defaultSqlHost = 'default';

/** What a namespace's DTL runs see: its SQL hosts by name. */
export interface SqlHostSource {
  runSql(name: string, query: SqlQuery): Promise<SqlRow | undefined>;
}

export interface SqlHostSummary {
  name: string;
  /** `SQLite <file>` or `PostgreSQL <host>/<database>`: never a password. */
  description: string;
}

export class SqlHosts {
  private readonly open = new Map<string, Promise<SqlConnection>>();

  constructor(
    private readonly config: SqlHostsConfig = {},
    private readonly onBackgroundError: (error: Error) => void = () => {},
  ) {}

  /** The connections configured for a namespace. */
  list(namespace: string): SqlHostSummary[] {
    return Object.entries(this.config[namespace] ?? {}).map(([name, spec]) => ({ name, description: describeSqlHost(spec) }));
  }

  forNamespace(namespace: string): SqlHostSource {
    return { runSql: (name, query) => this.runSql(namespace, name, query) };
  }

  async runSql(namespace: string, name: string, query: SqlQuery): Promise<SqlRow | undefined> {
    const connection = await this.connection(namespace, name);
    return connection.firstRow(query);
  }

  async close(): Promise<void> {
    const connections = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(connections.map(async (pending) => (await pending).close()));
  }

  private connection(namespace: string, name: string): Promise<SqlConnection> {
    const spec = this.config[namespace]?.[name];
    if (!spec) {
      const known = Object.keys(this.config[namespace] ?? {});
      return Promise.reject(
        new ConveyorError(
          'ERR_CONFIG',
          `SQL host ${name} is not configured in namespace ${namespace} (${known.length === 0 ? 'it has none' : `it has ${known.join(', ')}`}; see sqlHosts in conveyor.yaml)`,
        ),
      );
    }
    const key = `${namespace}\u0000${name}`;
    let pending = this.open.get(key);
    if (!pending) {
      pending = this.connect(spec, name);
      this.open.set(key, pending);
      // A connection that could not open is not kept: the next run tries again (the file may appear).
      pending.catch(() => this.open.delete(key));
    }
    return pending;
  }

  private async connect(spec: SqlHostSpec, name: string): Promise<SqlConnection> {
    try {
      if (spec.kind === 'sqlite') return new SqliteConnection(spec.path);
      return new PostgresConnection(spec.url, this.onBackgroundError);
    } catch (error) {
      throw new ConveyorError('ERR_CONFIG', `SQL host ${name} (${describeSqlHost(spec)}) cannot be opened: ${(error as Error).message}`);
    }
  }
}
