/**
 * The group-committed writes of the PostgreSQL driver: message inserts, message patches and log
 * appends. A batch's messages (inserts and patches together) are ONE statement whatever the batch's
 * size — rows travel as one JSON document per half, expanded by `json_to_recordset` and
 * `jsonb_array_elements`, so each of its three texts (inserts, patches, both) is prepared once per
 * connection — and that statement is its own transaction: one round trip per batch. Only a batch
 * with log entries opens a transaction around it (the log needs its lock first, below).
 *
 * Commits that need not wait for the disk: a batch whose every message row belongs to a request with
 * a parent (the request, its response, a change of its status) commits without waiting for the WAL
 * flush (`synchronous_commit` off for that transaction only, decided by the statement from the rows
 * themselves). It is still committed in order and visible at once; a PostgreSQL crash may lose it,
 * but only together with everything committed after it, the parent's own outcome included, and the
 * parent — unfinished again — runs again and sends it anew: at least once, as before. Every commit
 * about a request without a parent (what a service or an outside caller sent, whose acceptance or
 * reply someone outside is told about) waits for the disk as before, and so do log entries — except
 * the insert of a request whose sender waits only for its reply (`lazy`): that reply comes after the
 * request's outcome, whose commit waits for the disk and so makes the request durable first.
 *
 * Ops carry namespace names, resolved here rather than by the caller: callers submit synchronously,
 * so writes reach the committer in call order (ids follow it) and none can slip past a close().
 *
 * Order inside a batch: the messages' statement, then log appends. Inserts and patches can share one
 * statement because a patch names a message whose insert committed before, or one inserted in the
 * same batch, whose insert it is folded into (foldIntoInserts); log rows depend on nothing, and last
 * they put the log's lock at the very end of the transaction.
 *
 * Log ids: ids must increase in commit order within a namespace, or a reader polling `since(id)`
 * could see id 12 committed before id 11 and skip 11 forever. Each namespace's appends are
 * serialised by a transaction-scoped advisory lock, and ids are drawn from the sequence only once
 * the lock is held; the lock is released after the commit is visible. So a transaction that draws
 * ids after ours also commits after ours. Cost: appends to one namespace from several nodes commit
 * one at a time, which group commit makes cheap (one lock per batch, not per entry). The sequence
 * must keep CACHE 1 (the default), or nodes would draw ids from private ranges out of order.
 */
import type pg from 'pg';
import { ConveyorError, isConveyorError } from '../../core/errors.ts';
import type { NewLogEntry } from '../../core/log.ts';
import { mergeDefined } from '../patch-merge.ts';
import type { MessagePatch, NewMessage } from '../store.ts';
import { toStoreError } from './postgres-context.ts';

/** A node's claim written with the insert: the rows start `delivered`, leased by `owner` until `until`. */
export interface InsertLease {
  owner: string;
  until: number;
}

/** A block of ids drawn from the messages' sequence ahead of their inserts (postgres-messages.ts). */
export const reserveMessageIdsSql = "SELECT nextval('messages_id_seq') AS id FROM generate_series(1, $1::int)";

export type PgWrite =
  /** `lazy`: nobody waits for these rows' durability by itself (see postgres-messages.ts): their commit need not wait for the disk. */
  | { kind: 'insert-messages'; messages: NewMessage[]; lease?: InsertLease; lazy?: boolean; ids?: number[] }
  | { kind: 'patch-messages'; patches: MessagePatch[] }
  | { kind: 'append-log'; namespace: string; entries: NewLogEntry[] };

/** Namespace name to id, or ERR_NAMESPACE_UNKNOWN (cached: namespaces are never deleted). */
export type NamespaceResolver = (name: string) => Promise<number>;

/** How much an op weighs against the committer's batch limit: its row count. */
export function writeWeight(op: PgWrite): number {
  switch (op.kind) {
    case 'insert-messages':
      return Math.max(1, op.messages.length);
    case 'patch-messages':
      return Math.max(1, op.patches.length);
    case 'append-log':
      return Math.max(1, op.entries.length);
  }
}

const allocateLogIds = "SELECT nextval('log_entries_id_seq') AS id FROM generate_series(1, $1::int)";

/**
 * The insert half of a batch statement: its rows as ONE json parameter, an array of objects keyed by
 * these columns (a key left out is NULL). One JSON.stringify instead of an array parameter per
 * column, each element escaped by the driver in JavaScript: a third to a half less Node CPU per
 * statement, and no more PostgreSQL CPU (json_to_recordset against unnest of 21 arrays; 3-row
 * statements in turns).
 */
const insertColumns = [
  ['ns_id', 'int'],
  ['session_id', 'bigint'],
  ['parent_id', 'bigint'],
  ['corresponding_id', 'bigint'],
  ['kind', 'text'],
  ['source', 'text'],
  ['target', 'text'],
  ['response_required', 'bool'],
  ['status', 'text'],
  ['priority', 'int'],
  ['description', 'text'],
  ['error', 'text'],
  ['attempts', 'int'],
  ['classname', 'text'],
  ['encoding', 'text'],
  ['data', 'text'],
  ['lease_owner', 'text'],
  ['lease_until', 'bigint'],
  ['trace_parent', 'text'],
  ['lazy', 'bool'],
  ['given_id', 'bigint'],
] as const;

/** One insert row of the json parameter (undefined: left out, so NULL). */
type InsertRow = { [Column in (typeof insertColumns)[number][0]]?: unknown };

/**
 * The patch half: the MessagePatch objects themselves as one jsonb parameter. A field is set when
 * its key is there (JSON.stringify leaves out what is undefined), to null when its value is null.
 */
const patchFields = [
  ['status', 'status', 'text'],
  ['corresponding_id', 'correspondingId', 'bigint'],
  ['error', 'error', 'text'],
  ['attempts', 'attempts', 'int'],
  ['lease_owner', 'leaseOwner', 'text'],
  ['lease_until', 'leaseUntil', 'bigint'],
] as const satisfies ReadonlyArray<readonly [string, keyof MessagePatch, string]>;

type BatchShape = 'inserts' | 'patches' | 'both';

/**
 * The statement for a batch of one shape: inserts only, patches only, or both. Three statements
 * rather than one that always carries both halves: an empty half still costs its executor set-up
 * and its array parameters, and the one statement cost PostgreSQL 0.9 ms a batch against 0.24 ms
 * (inserts) and 0.37 ms (patches) for these (bench/postgres-profile.ts).
 *
 * Parameters: $1 the time, $2 whether the commit may skip the disk wait, then the insert rows (json)
 * and the patches (jsonb), each half as one parameter.
 *
 * `fresh` draws the ids (a CTE with nextval is evaluated once, in row order, so ids follow
 * submission order). The patch UPDATE sees the rows as they were before the statement, which is
 * enough: a patch of a row inserted in the same batch was folded into its insert (foldIntoInserts).
 * One UPDATE changes a row once: patches are merged per id before (mergedPatches). When a patched id
 * does not exist, the statement raises (conveyor_missing_messages, migration
 * 'message-patch-check') and, being its own transaction or part of the caller's, writes nothing: the
 * committer's retry-alone stays exact. The last column relaxes this transaction's commit when every
 * message row it wrote has a parent or was inserted lazy, and the batch allows it.
 */
function writeBatchSql(shape: BatchShape): string {
  const ctes: string[] = [];
  const relaxIf: string[] = [];
  let ids = "'{}'::bigint[]";
  let checked = 'NULL::boolean';
  if (shape !== 'patches') {
    ctes.push(`fresh AS (
      SELECT coalesce(t.given_id, nextval('messages_id_seq')) AS id, t.*
      FROM ROWS FROM (json_to_recordset($3::json) AS (${insertColumns.map(([name, type]) => `${name} ${type}`).join(', ')}))
        WITH ORDINALITY AS t(${insertColumns.map(([name]) => name).join(', ')}, ord)
    )`);
    ctes.push(`headers AS (
      INSERT INTO messages (id, ns_id, session_id, parent_id, corresponding_id, kind, source, target, response_required, status, priority,
        description, error, attempts, classname, created_at, updated_at, lease_owner, lease_until, trace_parent)
      SELECT id, ns_id, coalesce(session_id, id), parent_id, corresponding_id, kind, source, target, response_required, status, priority,
        description, error, coalesce(attempts, 0), classname, $1::bigint, $1::bigint, lease_owner, lease_until, trace_parent
      FROM fresh
    )`);
    ctes.push('bodies AS (INSERT INTO message_bodies (message_id, encoding, data) SELECT id, encoding, data FROM fresh)');
    ids = "(SELECT coalesce(array_agg(id ORDER BY ord), '{}') FROM fresh)";
    relaxIf.push('NOT EXISTS (SELECT 1 FROM fresh WHERE parent_id IS NULL AND NOT coalesce(lazy, false))');
  }
  if (shape !== 'inserts') {
    const patches = shape === 'both' ? '$4::jsonb' : '$3::jsonb';
    const set = patchFields.map(([column, key, type]) => {
      const value = type === 'text' ? `p.doc->>'${key}'` : `(p.doc->>'${key}')::${type}`;
      return `${column} = CASE WHEN p.doc ? '${key}' THEN ${value} ELSE m.${column} END`;
    });
    ctes.push(`patch AS (SELECT (doc->>'id')::bigint AS id, doc FROM jsonb_array_elements(${patches}) AS e(doc))`);
    ctes.push(`patched AS (
      UPDATE messages m SET ${set.join(', ')}, updated_at = $1::bigint
      FROM patch p
      WHERE m.id = p.id
      RETURNING m.id, m.parent_id
    )`);
    checked = `CASE WHEN (SELECT count(*) FROM patched) < jsonb_array_length(${patches}) THEN
      (SELECT conveyor_missing_messages(array_agg(id ORDER BY id)) FROM patch WHERE id NOT IN (SELECT id FROM patched)) END`;
    relaxIf.push('NOT EXISTS (SELECT 1 FROM patched WHERE parent_id IS NULL)');
  }
  return `WITH ${ctes.join(', ')}
    SELECT ${ids} AS ids, ${checked} AS checked,
      CASE WHEN $2::bool AND ${relaxIf.join(' AND ')} THEN set_config('synchronous_commit', 'off', true) END AS relaxed`;
}

export const writeStatements: Record<BatchShape, { name: string; text: string }> = {
  inserts: { name: 'conveyor-write-inserts', text: writeBatchSql('inserts') },
  patches: { name: 'conveyor-write-patches', text: writeBatchSql('patches') },
  both: { name: 'conveyor-write-batch', text: writeBatchSql('both') },
};

/**
 * Startup options of the hot path's connections (the batches, and the claims and leases of
 * postgres-messages.ts). Their statements reach rows by key or through the queue's small partial
 * indexes only, so the planner may not choose a full scan, a hash join or a merge join: a prepared
 * statement keeps the generic plan it got at its sixth run until the next ANALYZE of its tables, and
 * made while the messages table was nearly empty that plan updated the patched rows by scanning the
 * whole table, and kept doing so as the table grew (in a fresh database for the first minute or so,
 * until autovacuum's first ANALYZE), each batch reading more rows than the one before. And always the
 * generic plan: the patch statements' custom plans looked cheaper to PostgreSQL's plan cache, so it
 * planned them again at every run, a third of their CPU (540-660 against 820-910 µs of PostgreSQL CPU
 * for a group-committed insert and patch, one at a time).
 */
export const hotPathPlannerSettings = '-c enable_seqscan=off -c enable_hashjoin=off -c enable_mergejoin=off -c plan_cache_mode=force_generic_plan';

/** What conveyor_missing_messages raises: PL/pgSQL's no_data_found, the missing ids in its detail. */
const missingMessagesState = 'P0002';

const lockLog = 'SELECT pg_advisory_xact_lock(hashtext($1), $2::int)';

const insertLog = `
  INSERT INTO log_entries (id, ns_id, type, config_name, job, message_id, session_id, source_class, source_method, text, time_logged)
  SELECT t.*, $11::bigint FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
    $8::text[], $9::text[], $10::text[]) AS t`;

/** Deadlock and serialisation failures: the whole transaction is safe to run again. */
const retryableStates = new Set(['40P01', '40001']);
const maxAttempts = 4;

/**
 * Whether a failed batch is worth retrying op by op: yes when one write may be at fault (a
 * constraint, an unknown message), no when the database itself failed (unreachable, out of disk or
 * memory, internal error), which every op would only meet again, each after its own timeout.
 */
export function isWritesOwnFailure(error: unknown): boolean {
  if (isConveyorError(error, 'ERR_STORE_UNAVAILABLE')) return false;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const state = typeof cause?.code === 'string' ? cause.code : '';
  return !/^(53|58|XX)/.test(state);
}

/** Returns the commit function for the group committer: one id list per op. */
export function postgresBatchWriter(pool: pg.Pool, schema: string, resolve: NamespaceResolver): (batch: readonly PgWrite[]) => Promise<number[][]> {
  const logLockKey = `conveyor.log.${schema}`;
  return async (batch) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const namespaceIds = await resolveNamespaces(batch, resolve);
        return await applyBatch(pool, batch, namespaceIds, logLockKey, Date.now());
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt < maxAttempts && typeof code === 'string' && retryableStates.has(code)) continue;
        throw toStoreError('write to the store', error);
      }
    }
  };
}

async function resolveNamespaces(batch: readonly PgWrite[], resolve: NamespaceResolver): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const need = (name: string): void => {
    if (!ids.has(name)) ids.set(name, -1);
  };
  for (const op of batch) {
    if (op.kind === 'insert-messages') for (const message of op.messages) need(message.namespace);
    else if (op.kind === 'append-log') need(op.namespace);
  }
  for (const name of ids.keys()) ids.set(name, await resolve(name));
  return ids;
}

/**
 * Messages only: one statement, its own transaction. With log entries: one transaction holding the
 * message statement (then waiting for the disk like the log) and then the log's lock and rows, at
 * the very end.
 */
async function applyBatch(pool: pg.Pool, batch: readonly PgWrite[], namespaceIds: Map<string, number>, logLockKey: string, now: number): Promise<number[][]> {
  const results: number[][] = batch.map(() => []);
  const messageOps: number[] = [];
  const logs = new Map<number, number[]>();
  batch.forEach((op, index) => {
    if (op.kind !== 'append-log') messageOps.push(index);
    else {
      const namespaceId = namespaceIds.get(op.namespace)!;
      const indexes = logs.get(namespaceId);
      if (indexes === undefined) logs.set(namespaceId, [index]);
      else indexes.push(index);
    }
  });
  const client = await pool.connect();
  // A client whose ROLLBACK failed is in an unknown state: it is dropped, not given back.
  let broken = false;
  try {
    if (logs.size === 0) {
      await writeMessages(client, batch, messageOps, namespaceIds, results, now, true);
      return results;
    }
    await client.query('BEGIN');
    try {
      if (messageOps.length > 0) await writeMessages(client, batch, messageOps, namespaceIds, results, now, false);
      // Sorted, so two transactions appending to the same namespaces take their locks in one order.
      for (const namespaceId of [...logs.keys()].sort((a, b) => a - b)) {
        await appendLog(client, batch, logs.get(namespaceId)!, namespaceId, results, logLockKey, now);
      }
      await client.query('COMMIT');
      return results;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}

async function writeMessages(
  client: pg.PoolClient,
  batch: readonly PgWrite[],
  opIndexes: number[],
  namespaceIds: Map<string, number>,
  results: number[][],
  now: number,
  mayRelax: boolean,
): Promise<void> {
  const inserts: Array<Extract<PgWrite, { kind: 'insert-messages' }>> = [];
  const insertIndexes: number[] = [];
  const patches: MessagePatch[] = [];
  for (const index of opIndexes) {
    const op = batch[index]!;
    if (op.kind === 'insert-messages') {
      inserts.push(op);
      insertIndexes.push(index);
    } else if (op.kind === 'patch-messages') patches.push(...op.patches);
  }
  const rows = insertRows(inserts, namespaceIds);
  const updates = foldIntoInserts(mergedPatches(patches), inserts, rows);
  const shape: BatchShape = inserts.length === 0 ? 'patches' : updates.length === 0 ? 'inserts' : 'both';
  const values: unknown[] = [now, mayRelax];
  if (shape !== 'patches') values.push(JSON.stringify(rows));
  if (shape !== 'inserts') values.push(JSON.stringify(updates));
  let answer: Array<{ ids: Array<string | number> }>;
  try {
    ({ rows: answer } = await client.query<{ ids: Array<string | number> }>({ ...writeStatements[shape], values }));
  } catch (error) {
    const { code, detail } = error as { code?: unknown; detail?: unknown };
    if (code !== missingMessagesState) throw error;
    const missing = String(detail).split(',')[0];
    throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Cannot update message ${missing}: no message with that id exists`);
  }
  const ids = answer[0]!.ids.map(Number);
  let next = 0;
  inserts.forEach((op, opNumber) => {
    results[insertIndexes[opNumber]!] = ids.slice(next, next + op.messages.length);
    next += op.messages.length;
  });
}

/**
 * A lone surrogate (half of a UTF-16 pair) as U+FFFD: PostgreSQL's JSON parser rejects its escape,
 * where UTF-8 encoding of a plain text parameter replaced it silently (and did so before rows went
 * as JSON).
 */
const loneSurrogate = /\p{Surrogate}/gu;
/**
 * A number for a JSON parameter. JSON writes NaN and the infinities as null, which would store NULL
 * (a lease that never ends) where the array parameters refused them: refused here instead.
 */
function finite<T extends number | null | undefined>(value: T, column: string): T {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new ConveyorError('ERR_INVALID_INPUT', `Cannot store ${value} as a message's ${column}`);
  return value;
}

function wellFormed<T extends string | null | undefined>(text: T): T {
  if (typeof text !== 'string') return text;
  loneSurrogate.lastIndex = 0;
  return (loneSurrogate.test(text) ? text.replace(loneSurrogate, '\ufffd') : text) as T;
}

/** The insert rows of a batch, in submission order. */
function insertRows(ops: Array<Extract<PgWrite, { kind: 'insert-messages' }>>, namespaceIds: Map<string, number>): InsertRow[] {
  const rows: InsertRow[] = [];
  for (const op of ops) {
    op.messages.forEach((message, index) => {
      // A session's first message (sessionId null) names the session: the statement uses its new id.
      rows.push({
        ns_id: namespaceIds.get(message.namespace),
        session_id: message.sessionId ?? undefined,
        parent_id: message.parentId ?? undefined,
        corresponding_id: message.correspondingId ?? undefined,
        kind: message.kind,
        source: wellFormed(message.source),
        target: wellFormed(message.target),
        response_required: message.responseRequired,
        status: op.lease === undefined ? message.status : 'delivered',
        priority: finite(message.priority, 'priority'),
        description: wellFormed(message.description),
        classname: wellFormed(message.body.classname),
        encoding: wellFormed(message.body.encoding),
        data: wellFormed(message.body.data),
        lease_owner: wellFormed(op.lease?.owner),
        lease_until: finite(op.lease?.until, 'lease_until'),
        trace_parent: wellFormed(message.traceParent ?? undefined),
        lazy: op.lazy === true ? true : undefined,
        given_id: op.ids?.[index],
      });
    });
  }
  return rows;
}

/**
 * Folds the patches of rows inserted in this very batch into their inserts and returns the other
 * patches. Such a patch exists because ids drawn ahead let a patch follow its insert into the same
 * committer before that insert commits (postgres-messages.ts, update): the row is then inserted as
 * the patch leaves it — one write instead of an insert, a commit and an UPDATE (the statement's
 * UPDATE could not reach it: it sees the table as it was before the statement). A folded row no
 * longer counts as `lazy`: like a patched row, it lets the commit skip the disk wait only when it
 * has a parent.
 */
function foldIntoInserts(patches: MessagePatch[], inserts: Array<Extract<PgWrite, { kind: 'insert-messages' }>>, rows: InsertRow[]): MessagePatch[] {
  const given = new Map<number, InsertRow>();
  let rowNumber = 0;
  for (const op of inserts) {
    op.messages.forEach((_message, index) => {
      const id = op.ids?.[index];
      if (id !== undefined) given.set(id, rows[rowNumber]!);
      rowNumber += 1;
    });
  }
  if (given.size === 0) return patches;
  return patches.filter((patch) => {
    const row = given.get(patch.id);
    if (row === undefined) return true;
    for (const [column, key] of patchFields) if (patch[key] !== undefined) row[column] = patch[key];
    row.lazy = undefined;
    return false;
  });
}

/**
 * Several patches of one message in a batch are merged in order (a later field wins), which is what
 * applying them one by one would leave; one UPDATE can change a row only once. Ascending ids:
 * concurrent batches lock rows in one order, which keeps deadlocks rare. Each comes out as the
 * batch's JSON may carry it, whether it goes to the UPDATE or is folded into an insert.
 */
function mergedPatches(patches: MessagePatch[]): MessagePatch[] {
  const merged = new Map<number, MessagePatch>();
  for (const patch of patches) {
    const previous = merged.get(patch.id);
    merged.set(patch.id, previous === undefined ? { ...patch } : mergeDefined(previous, patch));
  }
  return [...merged.values()].map(storablePatch).sort((a, b) => a.id - b.id);
}

/** Texts without lone surrogates, numbers finite (wellFormed, finite). */
function storablePatch(patch: MessagePatch): MessagePatch {
  return {
    ...patch,
    error: wellFormed(patch.error),
    leaseOwner: wellFormed(patch.leaseOwner),
    correspondingId: finite(patch.correspondingId, 'corresponding_id'),
    attempts: finite(patch.attempts, 'attempts'),
    leaseUntil: finite(patch.leaseUntil, 'lease_until'),
  };
}

async function allocate(client: pg.PoolClient, name: string, text: string, count: number): Promise<number[]> {
  const { rows } = await client.query<{ id: number }>({ name, text, values: [count] });
  return rows.map((row) => row.id);
}

async function appendLog(
  client: pg.PoolClient,
  batch: readonly PgWrite[],
  opIndexes: number[],
  namespaceId: number,
  results: number[][],
  logLockKey: string,
  now: number,
): Promise<void> {
  await client.query({ name: 'conveyor-lock-log', text: lockLog, values: [logLockKey, namespaceId] });
  const ops = opIndexes.map((index) => batch[index] as Extract<PgWrite, { kind: 'append-log' }>);
  const total = ops.reduce((sum, op) => sum + op.entries.length, 0);
  const ids = await allocate(client, 'conveyor-allocate-log-ids', allocateLogIds, total);
  const columns: unknown[][] = Array.from({ length: 10 }, () => []);
  let next = 0;
  ops.forEach((op, opNumber) => {
    results[opIndexes[opNumber]!] = ids.slice(next, next + op.entries.length);
    for (const entry of op.entries) {
      const row = [
        ids[next],
        namespaceId,
        entry.type,
        entry.configName,
        entry.job,
        entry.messageId,
        entry.sessionId,
        entry.sourceClass,
        entry.sourceMethod,
        entry.text,
      ];
      row.forEach((value, column) => columns[column]!.push(value));
      next += 1;
    }
  });
  await client.query({ name: 'conveyor-insert-log', text: insertLog, values: [...columns, now] });
}
