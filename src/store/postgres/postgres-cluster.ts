/**
 * The cluster repository on PostgreSQL: node registry, named leases and LISTEN/NOTIFY wake-ups.
 *
 * Leases are rows with an expiry, not session-level advisory locks: a session lock lives exactly as
 * long as one connection, which a pool hands around and which can outlive a hung node (TCP keeps
 * it open) or die under a healthy one (a network blip). A row with an expiry says what it means:
 * the holder renews it while it works, and anyone may take it once it lapsed. The upsert decides
 * under the row lock, so two nodes racing for a free lease cannot both win.
 */
import type { ClusterRepository, LeaseRecord, NodeRecord, NodeRegistration, NotificationHandler } from '../store.ts';
import { dbNowMs, type PostgresContext } from './postgres-context.ts';
import type { PgNotifier } from './notifier.ts';

const acquireSql = `
  INSERT INTO leases AS l (name, owner, acquired_at, expires_at)
  VALUES ($1, $2, ${dbNowMs}, ${dbNowMs} + $3::bigint)
  ON CONFLICT (name) DO UPDATE SET
    owner = excluded.owner,
    acquired_at = CASE WHEN l.owner = excluded.owner THEN l.acquired_at ELSE excluded.acquired_at END,
    expires_at = excluded.expires_at
  WHERE l.owner = excluded.owner OR l.expires_at <= ${dbNowMs}
  RETURNING owner`;

interface NodeRow {
  node_id: string;
  host: string;
  pid: number;
  api_url: string | null;
  started_at: number;
  heartbeat_at: number;
  silent_ms: number;
}

export class PostgresCluster implements ClusterRepository {
  readonly #ctx: PostgresContext;
  readonly #notifier: PgNotifier;

  constructor(ctx: PostgresContext, notifier: PgNotifier) {
    this.#ctx = ctx;
    this.#notifier = notifier;
  }

  registerNode(node: NodeRegistration): Promise<void> {
    return this.#ctx.run('register the node', async () => {
      await this.#ctx.pool.query(
        `INSERT INTO nodes (node_id, host, pid, api_url, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, ${dbNowMs}, ${dbNowMs})
         ON CONFLICT (node_id) DO UPDATE SET host = excluded.host, pid = excluded.pid, api_url = excluded.api_url,
           started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
        [node.nodeId, node.host, node.pid, node.apiUrl],
      );
    });
  }

  heartbeat(nodeId: string): Promise<boolean> {
    return this.#ctx.run('record a node heartbeat', async () => {
      const result = await this.#ctx.pool.query({
        name: 'conveyor-heartbeat',
        text: `UPDATE nodes SET heartbeat_at = ${dbNowMs} WHERE node_id = $1`,
        values: [nodeId],
      });
      return result.rowCount === 1;
    });
  }

  removeNode(nodeId: string): Promise<void> {
    return this.#ctx.write('remove the node', async (trx) => {
      await trx.deleteFrom('leases').where('owner', '=', nodeId).execute();
      await trx.deleteFrom('nodes').where('node_id', '=', nodeId).execute();
    });
  }

  listNodes(): Promise<NodeRecord[]> {
    return this.#ctx.run('list nodes', async () => {
      const { rows } = await this.#ctx.pool.query<NodeRow>(
        `SELECT node_id, host, pid, api_url, started_at, heartbeat_at, ${dbNowMs} - heartbeat_at AS silent_ms FROM nodes ORDER BY node_id`,
      );
      return rows.map((row) => ({
        nodeId: row.node_id,
        host: row.host,
        pid: row.pid,
        apiUrl: row.api_url,
        startedAt: row.started_at,
        heartbeatAt: row.heartbeat_at,
        silentMs: Math.max(0, row.silent_ms),
      }));
    });
  }

  tryAcquireLease(name: string, nodeId: string, ttlMs: number): Promise<boolean> {
    return this.#ctx.run(`acquire the lease "${name}"`, async () => {
      const ttl = Math.max(1, Math.floor(ttlMs));
      const { rows } = await this.#ctx.pool.query({ name: 'conveyor-acquire-lease', text: acquireSql, values: [name, nodeId, ttl] });
      return rows.length === 1;
    });
  }

  releaseLease(name: string, nodeId: string): Promise<boolean> {
    return this.#ctx.run(`release the lease "${name}"`, async (db) => {
      const result = await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', nodeId).executeTakeFirst();
      return result.numDeletedRows === 1n;
    });
  }

  getLease(name: string): Promise<LeaseRecord | null> {
    return this.#ctx.run(`read the lease "${name}"`, async (db) => {
      const row = await db
        .selectFrom('leases')
        .select(['name', 'owner', 'acquired_at as acquiredAt', 'expires_at as expiresAt'])
        .where('name', '=', name)
        .executeTakeFirst();
      return row ?? null;
    });
  }

  async subscribe(channel: string, onMessage: NotificationHandler): Promise<() => Promise<void>> {
    this.#ctx.assertOpen();
    return this.#notifier.subscribe(channel, onMessage);
  }

  async notify(channel: string, payload: string): Promise<void> {
    this.#ctx.assertOpen();
    return this.#notifier.notify(channel, payload);
  }
}
