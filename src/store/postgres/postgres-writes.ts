/**
 * The group-committed writes of the PostgreSQL driver: message inserts, message patches and log
 * appends. A batch of ops is applied in one transaction with a fixed number of statements, whatever
 * its size: rows travel as arrays and are expanded with `unnest`, so the SQL text never changes and
 * each statement is prepared once per connection.
 *
 * Ops carry namespace names, resolved here rather than by the caller: callers submit synchronously,
 * so writes reach the committer in call order (ids follow it) and none can slip past a close().
 *
 * Order inside a batch: inserts, then patches, then log appends. That is equivalent to applying the
 * ops one by one (a patch may target a message inserted in the same batch, never the reverse; log
 * rows depend on nothing), and it puts the log's lock at the very end of the transaction.
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
import type { MessagePatch, NewMessage } from '../store.ts';
import { toStoreError } from './postgres-context.ts';

export type PgWrite =
  | { kind: 'insert-messages'; messages: NewMessage[] }
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

const allocateMessageIds = "SELECT nextval('messages_id_seq') AS id FROM generate_series(1, $1::int)";
const allocateLogIds = "SELECT nextval('log_entries_id_seq') AS id FROM generate_series(1, $1::int)";

const insertHeaders = `
  INSERT INTO messages (id, ns_id, session_id, parent_id, corresponding_id, kind, source, target, response_required,
    status, priority, description, classname, created_at, updated_at)
  SELECT t.*, $14::bigint, $14::bigint FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[],
    $7::text[], $8::text[], $9::bool[], $10::text[], $11::int[], $12::text[], $13::text[]) AS t`;

const insertBodies = 'INSERT INTO message_bodies (message_id, encoding, data) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])';

// One statement serves every patch shape: each field has a "set it" flag, so absent fields keep their value.
const patchMessages = `
  UPDATE messages m SET
    status = CASE WHEN p.set_status THEN p.status ELSE m.status END,
    corresponding_id = CASE WHEN p.set_corresponding THEN p.corresponding_id ELSE m.corresponding_id END,
    error = CASE WHEN p.set_error THEN p.error ELSE m.error END,
    attempts = CASE WHEN p.set_attempts THEN p.attempts ELSE m.attempts END,
    lease_owner = CASE WHEN p.set_lease_owner THEN p.lease_owner ELSE m.lease_owner END,
    lease_until = CASE WHEN p.set_lease_until THEN p.lease_until ELSE m.lease_until END,
    updated_at = $14::bigint
  FROM unnest($1::bigint[], $2::bool[], $3::text[], $4::bool[], $5::bigint[], $6::bool[], $7::text[], $8::bool[], $9::int[],
    $10::bool[], $11::text[], $12::bool[], $13::bigint[])
    AS p(id, set_status, status, set_corresponding, corresponding_id, set_error, error, set_attempts, attempts,
      set_lease_owner, lease_owner, set_lease_until, lease_until)
  WHERE m.id = p.id
  RETURNING m.id`;

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

/** Returns the commit function for the group committer: one transaction, one id list per op. */
export function postgresBatchWriter(pool: pg.Pool, schema: string, resolve: NamespaceResolver): (batch: readonly PgWrite[]) => Promise<number[][]> {
  const logLockKey = `conveyor.log.${schema}`;
  return async (batch) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const namespaceIds = await resolveNamespaces(batch, resolve);
        return await inTransaction(pool, (client) => applyBatch(client, batch, namespaceIds, logLockKey, Date.now()));
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

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

async function applyBatch(
  client: pg.PoolClient,
  batch: readonly PgWrite[],
  namespaceIds: Map<string, number>,
  logLockKey: string,
  now: number,
): Promise<number[][]> {
  const results: number[][] = batch.map(() => []);
  const inserts: number[] = [];
  const patches: MessagePatch[] = [];
  const logs = new Map<number, number[]>();
  batch.forEach((op, index) => {
    if (op.kind === 'insert-messages') inserts.push(index);
    else if (op.kind === 'patch-messages') patches.push(...op.patches);
    else {
      const namespaceId = namespaceIds.get(op.namespace)!;
      const indexes = logs.get(namespaceId);
      if (indexes === undefined) logs.set(namespaceId, [index]);
      else indexes.push(index);
    }
  });
  if (inserts.length > 0) await insertMessages(client, batch, inserts, namespaceIds, results, now);
  if (patches.length > 0) await applyPatches(client, patches, now);
  // Sorted, so two transactions appending to the same namespaces take their locks in one order.
  for (const namespaceId of [...logs.keys()].sort((a, b) => a - b)) {
    await appendLog(client, batch, logs.get(namespaceId)!, namespaceId, results, logLockKey, now);
  }
  return results;
}

async function allocate(client: pg.PoolClient, name: string, text: string, count: number): Promise<number[]> {
  const { rows } = await client.query<{ id: number }>({ name, text, values: [count] });
  return rows.map((row) => row.id);
}

async function insertMessages(
  client: pg.PoolClient,
  batch: readonly PgWrite[],
  opIndexes: number[],
  namespaceIds: Map<string, number>,
  results: number[][],
  now: number,
): Promise<void> {
  const ops = opIndexes.map((index) => batch[index] as Extract<PgWrite, { kind: 'insert-messages' }>);
  const total = ops.reduce((sum, op) => sum + op.messages.length, 0);
  const ids = await allocate(client, 'conveyor-allocate-message-ids', allocateMessageIds, total);
  const columns: unknown[][] = Array.from({ length: 13 }, () => []);
  const bodies: unknown[][] = [[], [], []];
  let next = 0;
  ops.forEach((op, opNumber) => {
    const opIds = ids.slice(next, next + op.messages.length);
    next += op.messages.length;
    results[opIndexes[opNumber]!] = opIds;
    op.messages.forEach((message, index) => {
      const id = opIds[index]!;
      // A session's first message names the session: the id is known before the row is written.
      const row = [
        id,
        namespaceIds.get(message.namespace),
        message.sessionId ?? id,
        message.parentId,
        message.correspondingId,
        message.kind,
        message.source,
        message.target,
        message.responseRequired,
        message.status,
        message.priority,
        message.description,
        message.body.classname,
      ];
      row.forEach((value, column) => columns[column]!.push(value));
      bodies[0]!.push(id);
      bodies[1]!.push(message.body.encoding);
      bodies[2]!.push(message.body.data);
    });
  });
  await client.query({ name: 'conveyor-insert-headers', text: insertHeaders, values: [...columns, now] });
  await client.query({ name: 'conveyor-insert-bodies', text: insertBodies, values: bodies });
}

/**
 * Several patches of one message in a batch are merged in order (a later field wins), which is what
 * applying them one by one would leave; one UPDATE can change a row only once.
 */
async function applyPatches(client: pg.PoolClient, patches: MessagePatch[], now: number): Promise<void> {
  const merged = new Map<number, MessagePatch>();
  for (const patch of patches) {
    const previous = merged.get(patch.id);
    merged.set(patch.id, previous === undefined ? { ...patch } : mergeDefined(previous, patch));
  }
  // Ascending ids: concurrent batches lock rows in one order, which keeps deadlocks rare.
  const ordered = [...merged.values()].sort((a, b) => a.id - b.id);
  const columns: unknown[][] = Array.from({ length: 13 }, () => []);
  for (const p of ordered) {
    const row = [
      p.id,
      p.status !== undefined,
      p.status ?? null,
      p.correspondingId !== undefined,
      p.correspondingId ?? null,
      p.error !== undefined,
      p.error ?? null,
      p.attempts !== undefined,
      p.attempts ?? null,
      p.leaseOwner !== undefined,
      p.leaseOwner ?? null,
      p.leaseUntil !== undefined,
      p.leaseUntil ?? null,
    ];
    row.forEach((value, column) => columns[column]!.push(value));
  }
  const { rows } = await client.query<{ id: number }>({ name: 'conveyor-patch-messages', text: patchMessages, values: [...columns, now] });
  if (rows.length !== ordered.length) {
    const found = new Set(rows.map((row) => row.id));
    const missing = ordered.find((p) => !found.has(p.id))!;
    throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Cannot update message ${missing.id}: no message with that id exists`);
  }
}

function mergeDefined(base: MessagePatch, next: MessagePatch): MessagePatch {
  const result: MessagePatch = { ...base };
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined) (result as unknown as Record<string, unknown>)[key] = value;
  }
  return result;
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
