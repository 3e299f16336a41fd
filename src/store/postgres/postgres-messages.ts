/**
 * Messages on PostgreSQL. Inserts and patches go through the group committers; reads run on the
 * store's pool, and the queue operations (claim, leases, ids drawn ahead) on the connections of the
 * hot path (`hot`, shared with the group commits: postgres-writes.ts, hotPathPlannerSettings), each in
 * its own statement. There they keep one generic plan: the claim's custom plans looked cheaper to the
 * plan cache, which planned every claim anew (1 ms of planning for 0.6 ms of execution).
 *
 * The queue operations commit without waiting for the disk (`synchronous_commit` off for that one
 * statement): a claim, a lease renewal or a release that a PostgreSQL crash loses leaves the request
 * queued, or delivered under a lease that expires — it is delivered again, which at-least-once allows.
 * Anything that a claim led to and that must survive (an outcome) commits later and waits for the
 * disk, which makes the claim before it durable too (the WAL is flushed in order).
 */
import { sql } from 'kysely';
import { ConveyorError } from '../../core/errors.ts';
import type pg from 'pg';
import type { MessageHeader, StoredMessage } from '../../core/message.ts';
import { toHeader, toMessage, type HeaderRow, type MessageRow } from '../rows.ts';
import type { CommitOptions, MessageFilter, MessagePatch, MessageRepository, MessageSearch, MessageSearchPage, NewMessage, QueueDepth } from '../store.ts';
import { findMessages } from './postgres-message-search.ts';
import { positiveLimit, type PostgresContext } from './postgres-context.ts';
import type { MessageWrites } from './message-writes.ts';
import { reserveMessageIdsSql, type InsertLease, type PgWrite } from './postgres-writes.ts';
import { notCompleted, statusSearchTerm } from '../status-indexes.ts';

/** How many ids one draw takes from the sequence (a gap of at most this many when a node stops). */
const idBlock = 512;

const headerColumns = [
  'm.id',
  'm.session_id',
  'm.parent_id',
  'm.corresponding_id',
  'm.kind',
  'm.source',
  'm.target',
  'm.response_required',
  'm.status',
  'm.priority',
  'm.description',
  'm.error',
  'm.attempts',
  'm.created_at',
  'm.updated_at',
  'm.lease_owner',
  'm.lease_until',
] as const;
const headerSql = headerColumns.join(', ');
const messageSql = `${headerSql}, m.classname, b.encoding, b.data, m.trace_parent`;

/**
 * The claim. `FOR UPDATE SKIP LOCKED` lets concurrent claimers (other nodes, other jobs) pass over
 * rows someone else is taking instead of queueing behind them, so each claimer gets disjoint
 * messages and nobody waits. The fallback where SKIP LOCKED is missing (SQLite) is one writer at a
 * time: see the SQLite driver's claim, which runs in an immediate write transaction.
 *
 * One ordered walk of the partial `messages_claimable` index per target (LATERAL), then the best
 * `limit` of those: `target = ANY(…)` in one query cannot use the index order and would sort the
 * whole backlog on every claim. With several targets, rows fetched for one target but beaten by
 * another's stay locked until this statement ends (microseconds); other claimers skip them meanwhile.
 */
const relaxCommit = "relax AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)";

const claimSql = `
  WITH ${relaxCommit}, candidates AS (
    SELECT c.id, c.priority FROM unnest($2::text[]) AS t(target)
    CROSS JOIN LATERAL (
      SELECT id, priority FROM messages
      WHERE ns_id = $1 AND status = 'queued' AND kind = 'request' AND target = t.target
      ORDER BY priority DESC, id
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    ) c
  ), picked AS (
    SELECT id FROM candidates ORDER BY priority DESC, id LIMIT $3
  )
  UPDATE messages m SET status = 'delivered', lease_owner = $4, lease_until = $5::bigint, updated_at = $6::bigint
  FROM picked, message_bodies b, relax
  WHERE m.id = picked.id AND b.message_id = m.id
  RETURNING ${messageSql}`;

const extendSql = `
  WITH ${relaxCommit}
  UPDATE messages SET lease_until = $1::bigint, updated_at = $2::bigint
  FROM relax
  WHERE id = ANY($3::bigint[]) AND status = 'delivered' AND lease_owner = $4
  RETURNING id`;

const releaseSql = `
  WITH ${relaxCommit}
  UPDATE messages SET status = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = $1::bigint
  FROM relax
  WHERE ns_id = $2 AND status = 'delivered' AND lease_until <= $3::bigint`;

export class PostgresMessages implements MessageRepository {
  readonly #ctx: PostgresContext;
  readonly #hot: pg.Pool;
  readonly #writes: MessageWrites;
  /** Ids drawn from the sequence ahead, for inserts whose ids must be known before their commit. */
  readonly #drawnIds: number[] = [];
  #refilling = false;
  /**
   * Rows handed on with ids drawn ahead whose commit is under way: id → that commit (settled). A
   * read of one on this node waits for it (get: a node sees what it handed on), and without group
   * commit, where writes commit in no particular order, so do writes that refer to one (#after).
   */
  readonly #uncommitted = new Map<number, Promise<unknown>>();

  constructor(ctx: PostgresContext, hot: pg.Pool, writes: MessageWrites) {
    this.#ctx = ctx;
    this.#hot = hot;
    this.#writes = writes;
  }

  /** Submitted synchronously (the namespace is resolved at commit), so ids follow call order. */
  async insert(messages: NewMessage[]): Promise<number[]> {
    this.#ctx.assertOpen();
    return this.#insert(messages, undefined);
  }

  /**
   * One statement where insert-then-claim would take two, and no other node can take them meanwhile.
   * The ids come from a block drawn from the sequence ahead, so they are known before the commit:
   * the caller may hand the requests on at once and learns from `committed` when they are stored
   * (without ids in hand it waits for the commit, as `insert` does). Until then they are visible to
   * nobody; whatever is written about them later commits in the same batch or after it.
   * `lazy`: the commit need not wait for the disk (the sender waits only for the reply, which comes
   * after the request's outcome, whose commit does wait, making this one durable first); with ids in
   * hand the rows also ride in their committer's next commit instead of causing one (CommitOptions'
   * `lazy`): the request's own outcome, or its target's, is the next write, and when the outcome
   * is written in the same commit, the row is inserted finished (postgres-writes.ts, foldIntoInserts).
   */
  async insertClaimed(
    messages: NewMessage[],
    owner: string,
    leaseMs: number,
    options: { lazy?: boolean } = {},
  ): Promise<{ ids: number[]; committed: Promise<void> }> {
    this.#ctx.assertOpen();
    const lease = { owner, until: Date.now() + leaseMs };
    const lazy = options.lazy === true;
    const drawn = this.#drawIds(messages.length);
    if (drawn === null) return { ids: await this.#insert(messages, lease, lazy), committed: Promise.resolve() };
    return { ids: drawn, committed: this.#remember(drawn, this.#insert(messages, lease, lazy, drawn)) };
  }

  /**
   * As on SQLite: the ids at once (from the block drawn ahead), the rows committed with this
   * committer's next commit when `lazy`, and everything submitted later commits in the same batch
   * or after it (one committer: postgres-store.ts). Not `lazy` in the batch statement's sense:
   * whether the commit waits for the disk follows from the rows (a response to a request with a
   * parent has one itself).
   *
   * The block is drawn when the store opens and again whenever a quarter of it is used, so it runs
   * dry only when PostgreSQL could not be reached for every refill meanwhile: then this fails with
   * ERR_STORE_UNAVAILABLE, as the commit itself would.
   */
  insertEager(messages: NewMessage[], options: CommitOptions = {}): { ids: number[]; committed: Promise<void> } {
    this.#ctx.assertOpen();
    const drawn = this.#drawIds(messages.length);
    if (drawn === null) {
      throw new ConveyorError('ERR_STORE_UNAVAILABLE', 'No message ids drawn ahead are left: PostgreSQL could not be reached to draw more', {
        hint: 'Check that the PostgreSQL server is running and reachable.',
      });
    }
    const inserting = this.#insert(messages, undefined, false, drawn, options.lazy === true);
    return { ids: drawn, committed: this.#remember(drawn, inserting) };
  }

  /** Resolves once the insert of ids handed out before their commit is committed, and keeps that commit until then (#uncommitted). */
  #remember(drawn: number[], inserting: Promise<number[]>): Promise<void> {
    const committed = inserting.then(() => undefined);
    const pending = committed.catch(() => undefined);
    for (const id of drawn) this.#uncommitted.set(id, pending);
    void pending.then(() => {
      for (const id of drawn) this.#uncommitted.delete(id);
    });
    return committed;
  }

  /**
   * Submits the insert at once and resolves with its ids once committed. `lazy`: the rows need not
   * reach the disk by themselves (the batch statement's sense); `ride`: they wait for the
   * committer's next commit instead of causing one, which needs ids in hand (a caller waiting for
   * them would wait for somebody else's commit).
   */
  #insert(messages: NewMessage[], lease: InsertLease | undefined, lazy = false, drawn?: number[], ride = lazy): Promise<number[]> {
    if (messages.length === 0) return Promise.resolve([]);
    const op: PgWrite = {
      kind: 'insert-messages',
      messages,
      ...(lease === undefined ? {} : { lease }),
      ...(lazy ? { lazy } : {}),
      ...(drawn === undefined ? {} : { ids: drawn }),
    };
    const riding = ride && drawn !== undefined;
    const earlier = this.#after(messages.flatMap((message) => [message.correspondingId, message.parentId]));
    if (earlier === null) return this.#writes.submit(op, this.#writes.lane, riding);
    return earlier.then(() => this.#writes.submit(op, null, riding));
  }

  /**
   * Without group commit: the commits still under way of rows handed on that these ids name (a
   * response's request, a request's parent, a patched row), or null when there are none. A response
   * must not commit before its request, a child before its parent, nor a patch reach its row before
   * the row exists. (With group commit, submission order is commit order.)
   */
  #after(ids: ReadonlyArray<number | null>): Promise<unknown> | null {
    if (this.#writes.lane !== null || this.#uncommitted.size === 0) return null;
    const commits = ids.flatMap((id) => (id === null ? [] : (this.#uncommitted.get(id) ?? [])));
    return commits.length === 0 ? null : Promise.all(commits);
  }

  /** Draws the first block of ids ahead (the store's opening waits for it). */
  async drawFirstIds(): Promise<void> {
    const { rows } = await this.#hot.query<{ id: number }>({ name: 'conveyor-reserve-message-ids', text: reserveMessageIdsSql, values: [idBlock] });
    this.#drawnIds.push(...rows.map((row) => row.id));
  }

  /** Ids from the block drawn ahead, or null when it runs short (a new block is drawn meanwhile). */
  #drawIds(count: number): number[] | null {
    if (this.#drawnIds.length < (idBlock * 3) / 4) this.#refillIds();
    if (count === 0 || this.#drawnIds.length < count) return null;
    return this.#drawnIds.splice(0, count);
  }

  #refillIds(): void {
    if (this.#refilling || this.#ctx.closed) return;
    this.#refilling = true;
    this.#hot
      .query<{ id: number }>({ name: 'conveyor-reserve-message-ids', text: reserveMessageIdsSql, values: [idBlock] })
      .then(
        ({ rows }) => this.#drawnIds.push(...rows.map((row) => row.id)),
        () => undefined, // the next hand-off waits for its commit instead, and tries again
      )
      .finally(() => {
        this.#refilling = false;
      });
  }

  /**
   * Group-committed in submission order: a patch of a request handed on before its row was stored
   * commits with that row or after it, and when both land in one batch the patch is folded into the
   * insert (postgres-writes.ts, foldIntoInserts), so a request handed on and finished before its commit
   * costs one write. `lazy`: the patch rides in the next commit instead of causing one.
   */
  async update(patches: MessagePatch[], options: CommitOptions = {}): Promise<void> {
    this.#ctx.assertOpen();
    if (patches.length === 0) return;
    const op: PgWrite = { kind: 'patch-messages', patches };
    const earlier = this.#after(patches.map((patch) => patch.id));
    if (earlier !== null) await earlier;
    await this.#writes.submit(op, this.#writes.lane, options.lazy);
  }

  get(namespace: string, id: number): Promise<StoredMessage | null> {
    return this.#ctx.run('read a message', async () => {
      await this.#uncommitted.get(id);
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return null;
      const { rows } = await this.#ctx.pool.query<MessageRow>({
        name: 'conveyor-get-message',
        text: `SELECT ${messageSql} FROM messages m JOIN message_bodies b ON b.message_id = m.id WHERE m.ns_id = $1 AND m.id = $2`,
        values: [nsId, id],
      });
      return rows[0] === undefined ? null : toMessage(namespace, rows[0]);
    });
  }

  search(namespace: string, filter: MessageFilter): Promise<MessageHeader[]> {
    return this.#ctx.run('search messages', async (db) => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(filter.limit);
      if (nsId === undefined || limit === 0) return [];
      const text = filter.text === undefined || filter.text === '' ? undefined : filter.text;
      let query = db.selectFrom('messages as m').select(headerColumns).where('m.ns_id', '=', nsId);
      if (filter.from !== undefined) query = query.where('m.created_at', '>=', filter.from);
      if (filter.to !== undefined) query = query.where('m.created_at', '<=', filter.to);
      if (filter.source !== undefined) query = query.where('m.source', '=', filter.source);
      if (filter.target !== undefined) query = query.where('m.target', '=', filter.target);
      if (filter.classname !== undefined) query = query.where('m.classname', '=', filter.classname);
      if (filter.status !== undefined) query = query.where('m.status', '=', filter.status);
      const indexed = statusSearchTerm(filter.status, 'm');
      if (indexed !== null) query = query.where(sql.raw<boolean>(indexed));
      if (filter.kind !== undefined) query = query.where('m.kind', '=', filter.kind);
      if (filter.sessionId !== undefined) query = query.where('m.session_id', '=', filter.sessionId);
      if (filter.beforeId !== undefined) query = query.where('m.id', '<', filter.beforeId);
      // strpos: an exact, case-sensitive substring with no LIKE wildcards to escape.
      if (text !== undefined) query = query.where(bodyContains(text));
      const rows = await query.orderBy('m.id', 'desc').limit(limit).execute();
      return rows.map((row) => toHeader(namespace, row));
    });
  }

  find(namespace: string, search: MessageSearch): Promise<MessageSearchPage> {
    return this.#ctx.run('search messages by content', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const limit = positiveLimit(search.limit);
      if (nsId === undefined || limit === 0) return { hits: [], next: null, scanned: 0 };
      return findMessages(this.#ctx, namespace, nsId, search, limit);
    });
  }

  session(namespace: string, sessionId: number): Promise<MessageHeader[]> {
    return this.#ctx.run('read a session', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const { rows } = await this.#ctx.pool.query<HeaderRow>({
        name: 'conveyor-read-session',
        text: `SELECT ${headerSql} FROM messages m WHERE m.ns_id = $1 AND m.session_id = $2 ORDER BY m.id`,
        values: [nsId, sessionId],
      });
      return rows.map((row) => toHeader(namespace, row));
    });
  }

  unfinished(namespace: string): Promise<StoredMessage[]> {
    return this.#ctx.run('read unfinished messages', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const { rows } = await this.#ctx.pool.query<MessageRow>({
        name: 'conveyor-unfinished',
        text: `SELECT ${messageSql} FROM messages m JOIN message_bodies b ON b.message_id = m.id
          WHERE m.ns_id = $1 AND m.status IN ('queued', 'delivered') AND ${notCompleted('m')} AND m.kind = 'request' ORDER BY m.id`,
        values: [nsId],
      });
      return rows.map((row) => toMessage(namespace, row));
    });
  }

  claim(namespace: string, targets: string[], owner: string, limit: number, leaseMs: number): Promise<StoredMessage[]> {
    return this.#ctx.run('claim messages', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      const max = positiveLimit(limit);
      if (nsId === undefined || max === 0 || targets.length === 0) return [];
      const now = Date.now();
      const { rows } = await this.#hot.query<MessageRow>({
        name: 'conveyor-claim',
        text: claimSql,
        values: [nsId, targets, max, owner, now + leaseMs, now],
      });
      // RETURNING has no order of its own: put the claimed rows back in claim order.
      rows.sort((a, b) => b.priority - a.priority || a.id - b.id);
      const claimed = rows.map((row) => toMessage(namespace, row));
      return claimed;
    });
  }

  extendLeases(ids: number[], owner: string, leaseMs: number): Promise<number[]> {
    return this.#ctx.run('extend leases', async () => {
      if (ids.length === 0) return [];
      const now = Date.now();
      const { rows } = await this.#hot.query<{ id: number }>({
        name: 'conveyor-extend-leases',
        text: extendSql,
        values: [now + leaseMs, now, ids, owner],
      });
      const extended = new Set(rows.map((row) => row.id));
      return ids.filter((id) => extended.has(id));
    });
  }

  releaseExpired(namespace: string, now: number): Promise<number> {
    return this.#ctx.run('release expired leases', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return 0;
      const result = await this.#hot.query({ name: 'conveyor-release-expired', text: releaseSql, values: [Date.now(), nsId, now] });
      return result.rowCount ?? 0;
    });
  }

  queueDepths(namespace: string): Promise<QueueDepth[]> {
    return this.#ctx.run('read queue depths', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return [];
      const { rows } = await this.#ctx.pool.query<QueueDepth>({
        name: 'conveyor-queue-depths',
        text: `SELECT target, count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
            min(created_at) AS oldest
          FROM messages WHERE ns_id = $1 AND status IN ('queued', 'delivered') AND ${notCompleted()} GROUP BY target ORDER BY target`,
        values: [nsId],
      });
      return rows;
    });
  }

  count(namespace: string): Promise<number> {
    return this.#ctx.run('count messages', async () => {
      const nsId = await this.#ctx.namespaceId(namespace);
      if (nsId === undefined) return 0;
      const { rows } = await this.#ctx.pool.query<{ n: number }>({
        name: 'conveyor-count-messages',
        text: 'SELECT count(*) AS n FROM messages WHERE ns_id = $1',
        values: [nsId],
      });
      return rows[0]!.n;
    });
  }
}

/** Checked row by row while walking newest first, so a search stops as soon as it has `limit` hits. */
function bodyContains(text: string) {
  return sql<boolean>`EXISTS (SELECT 1 FROM message_bodies b WHERE b.message_id = m.id AND strpos(b.data, ${text}) > 0)`;
}
