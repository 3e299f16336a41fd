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
import type pg from 'pg';
import type { MessageHeader, StoredMessage } from '../../core/message.ts';
import { toHeader, toMessage, type HeaderRow, type MessageRow } from '../rows.ts';
import type { MessageFilter, MessagePatch, MessageRepository, MessageSearch, MessageSearchPage, NewMessage, QueueDepth } from '../store.ts';
import { findMessages } from './postgres-message-search.ts';
import { positiveLimit, type PostgresContext } from './postgres-context.ts';
import type { CommitRouting, MessageWrites, WriteLane } from './commit-routing.ts';
import { reserveMessageIdsSql, type InsertLease, type PgWrite } from './postgres-writes.ts';

/** How many ids one draw takes from the sequence (a gap of at most this many when a node stops). */
const idBlock = 64;

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
  readonly #routing: CommitRouting;
  /** Ids drawn from the sequence ahead, for inserts whose ids must be known before their commit. */
  readonly #drawnIds: number[] = [];
  #refilling = false;
  /** Requests inserted with ids drawn ahead whose commit is under way: id → the commit (settled) and the lane it goes through. */
  readonly #uncommitted = new Map<number, { committed: Promise<unknown>; lane: WriteLane | null }>();

  constructor(ctx: PostgresContext, hot: pg.Pool, writes: MessageWrites, routing: CommitRouting) {
    this.#ctx = ctx;
    this.#hot = hot;
    this.#writes = writes;
    this.#routing = routing;
  }

  /** Submitted synchronously (the namespace is resolved at commit), so ids follow call order. */
  async insert(messages: NewMessage[]): Promise<number[]> {
    this.#ctx.assertOpen();
    return this.#insert(messages, undefined).ids;
  }

  /**
   * One statement where insert-then-claim would take two, and no other node can take them meanwhile.
   * The ids come from a block drawn from the sequence ahead, so they are known before the commit:
   * the caller may hand the requests on at once and learns from `committed` when they are stored
   * (without ids in hand it waits for the commit, as `insert` does). Until then they are visible to
   * nobody, and a patch of one of them follows the insert into its committer, or waits for its
   * commit (update).
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
    if (drawn === null) return { ids: await this.#insert(messages, lease, lazy).ids, committed: Promise.resolve() };
    const inserting = this.#insert(messages, lease, lazy, drawn);
    const committed = inserting.ids.then(() => undefined);
    const pending = committed.catch(() => undefined);
    for (const id of drawn) this.#uncommitted.set(id, { committed: pending, lane: inserting.lane });
    void pending.then(() => {
      for (const id of drawn) this.#uncommitted.delete(id);
    });
    return { ids: drawn, committed };
  }

  /** Submits the insert at once (its lane is returned with it) and resolves with its ids once committed. */
  #insert(messages: NewMessage[], lease: InsertLease | undefined, lazy = false, drawn?: number[]): { ids: Promise<number[]>; lane: WriteLane | null } {
    if (messages.length === 0) return { ids: Promise.resolve([]), lane: null };
    const op: PgWrite = {
      kind: 'insert-messages',
      messages,
      ...(lease === undefined ? {} : { lease }),
      ...(lazy ? { lazy } : {}),
      ...(drawn === undefined ? {} : { ids: drawn }),
    };
    // Known ids are noted at once: a patch of one may come before the commit.
    const note = (ids: number[]) =>
      this.#routing.note(messages.flatMap((message, index) => (message.kind === 'request' ? [{ id: ids[index]!, parentId: message.parentId }] : [])));
    if (drawn !== undefined) note(drawn);
    // Riding needs ids in hand: a caller waiting for them would wait for somebody else's commit.
    const riding = lazy && drawn !== undefined;
    const hinted = this.#writes.laneFor(op);
    const earlier = this.#uncommittedOf(messages);
    const earlierLane = earlier[0]?.lane ?? null;
    let submitted: { ids: Promise<number[]>; lane: WriteLane | null };
    if (earlier.length === 0) submitted = { ids: this.#writes.submit(op, hinted, riding), lane: hinted };
    else if (earlierLane !== null && earlier.every((entry) => entry.lane === earlierLane)) {
      submitted = { ids: this.#writes.submit(op, earlierLane, riding), lane: earlierLane };
    } else {
      // Lane null: a patch of these rows must wait for their commit too, not overtake the insert.
      const ids = Promise.all(earlier.map((entry) => entry.committed)).then(() => this.#writes.submit(op, hinted, riding));
      submitted = { ids, lane: null };
    }
    return {
      ids: drawn === undefined ? submitted.ids.then((committed) => (note(committed), committed)) : submitted.ids,
      lane: submitted.lane,
    };
  }

  /**
   * The uncommitted hand-offs that `messages` refer to: the request a response answers, the parent
   * a request was sent by. Their rows must not commit after these: a response stored without its
   * request (a root request handed on lazily rides in the committer that need not wait for the disk,
   * its response goes to the one that waits; a PostgreSQL crash between the two commits kept the
   * response alone), or a child without its parent. So the insert follows them into their committer
   * (in order, often in the same batch), or, when they are in several, waits for their commits.
   */
  #uncommittedOf(messages: NewMessage[]): Array<{ committed: Promise<unknown>; lane: WriteLane | null }> {
    if (this.#uncommitted.size === 0) return [];
    const found: Array<{ committed: Promise<unknown>; lane: WriteLane | null }> = [];
    for (const message of messages) {
      for (const id of [message.correspondingId, message.parentId]) {
        const entry = id === null ? undefined : this.#uncommitted.get(id);
        if (entry !== undefined) found.push(entry);
      }
    }
    return found;
  }

  /** Ids from the block drawn ahead, or null when it runs short (a new block is drawn meanwhile). */
  #drawIds(count: number): number[] | null {
    if (this.#drawnIds.length < idBlock / 4) this.#refillIds();
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
   * Patches of requests whose insert is still being committed follow it into its lane, at once: a
   * committer commits its batches one after another, and a patch that lands in its insert's batch is
   * folded into it (postgres-writes.ts, foldIntoInserts), so a request handed on and finished before
   * its row was stored costs one write. The lane may differ from the routing's hint for the patch:
   * that only decides which committer queues it, the statement itself decides from the rows whether
   * the commit waits for the disk. Patches of rows in several lanes (or without group commit) wait
   * for those commits instead, so that the UPDATE finds the rows.
   */
  async update(patches: MessagePatch[]): Promise<void> {
    this.#ctx.assertOpen();
    if (patches.length === 0) return;
    const op: PgWrite = { kind: 'patch-messages', patches };
    let lane = this.#writes.laneFor(op);
    const inserts = patches.flatMap((patch) => this.#uncommitted.get(patch.id) ?? []);
    const insertLane = inserts[0]?.lane ?? null;
    if (insertLane !== null && inserts.every((insert) => insert.lane === insertLane)) lane = insertLane;
    else if (inserts.length > 0) await Promise.all(inserts.map((insert) => insert.committed));
    await this.#writes.submit(op, lane);
  }

  get(namespace: string, id: number): Promise<StoredMessage | null> {
    return this.#ctx.run('read a message', async () => {
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
          WHERE m.ns_id = $1 AND m.status IN ('queued', 'delivered') AND m.kind = 'request' ORDER BY m.id`,
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
      this.#routing.note(claimed);
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
          FROM messages WHERE ns_id = $1 AND status IN ('queued', 'delivered') GROUP BY target ORDER BY target`,
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
