/**
 * The group-committed writes of the SQLite driver: message inserts, message patches and log
 * appends. Each op is one repository call; a batch of ops is applied in one transaction with
 * statements prepared once (the hot path: no SQL is built per row).
 */
import type Database from 'better-sqlite3';
import { ConveyorError } from '../../core/errors.ts';
import { bodyBytes } from '../../core/message-bytes.ts';
import type { NewLogEntry } from '../../core/log.ts';
import { mergeDefined } from '../patch-merge.ts';
import type { MessagePatch, NewMessage } from '../store.ts';
import { SharedBodies } from './shared-bodies.ts';

type Db = Database.Database;

export type SqliteWrite =
  | { kind: 'insert-messages'; namespaceIds: number[]; ids: number[]; messages: NewMessage[] }
  | { kind: 'patch-messages'; patches: MessagePatch[] }
  | { kind: 'append-log'; namespaceId: number; entries: NewLogEntry[] };

/** How much an op weighs against the committer's batch limit: its row count. */
export function writeWeight(op: SqliteWrite): number {
  switch (op.kind) {
    case 'insert-messages':
      return Math.max(1, op.messages.length);
    case 'patch-messages':
      return Math.max(1, op.patches.length);
    case 'append-log':
      return Math.max(1, op.entries.length);
  }
}

/** Returns the commit function for the group committer: one transaction, one id list per op. */
export function sqliteBatchWriter(db: Db): (batch: readonly SqliteWrite[]) => number[][] {
  // Positional parameters: binding a named-parameter object costs a property lookup per name per row.
  const insertHeader = db.prepare(`
    INSERT INTO messages (id, ns_id, session_id, parent_id, corresponding_id, kind, source, target, response_required,
      status, priority, description, error, attempts, classname, created_at, updated_at, lease_owner, lease_until, trace_parent)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // A body still carrying the UTF-8 bytes it arrived with is bound as those bytes (no string made
  // and re-encoded: core/message-bytes.ts); the CAST stores them as TEXT, as a string would be.
  const insertBody = db.prepare('INSERT INTO message_bodies (message_id, encoding, data) VALUES (?, ?, CAST(? AS TEXT))');
  const insertSharedBody = db.prepare("INSERT INTO message_bodies (message_id, encoding, data, data_of) VALUES (?, ?, '', ?)");
  const sharedBodies = new SharedBodies(db);
  // One statement serves every patch shape: each field has a "set it" flag, so absent fields keep their value.
  const patch = db.prepare(`
    UPDATE messages SET
      status = CASE WHEN @setStatus THEN @status ELSE status END,
      corresponding_id = CASE WHEN @setCorrespondingId THEN @correspondingId ELSE corresponding_id END,
      error = CASE WHEN @setError THEN @error ELSE error END,
      attempts = CASE WHEN @setAttempts THEN @attempts ELSE attempts END,
      lease_owner = CASE WHEN @setLeaseOwner THEN @leaseOwner ELSE lease_owner END,
      lease_until = CASE WHEN @setLeaseUntil THEN @leaseUntil ELSE lease_until END,
      updated_at = @now
    WHERE id = @id`);
  // AUTOINCREMENT rewrites its sqlite_sequence row in every transaction that inserts a higher id:
  // one more page (a WAL frame) per group commit. The row is moved ahead a block of ids at a time
  // instead, and inserts below it leave it alone. A restart continues after the block (a gap in the
  // ids, never a reuse: firstFreeMessageId reads the row).
  const reserveIds = db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'messages' AND seq < ?");
  const readReserved = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").pluck();
  let reservedThrough = readReserved.get() ?? 0;
  const appendLog = db.prepare(`
    INSERT INTO log_entries (ns_id, type, config_name, job, message_id, session_id, source_class, source_method, text, time_logged)
    VALUES (@nsId, @type, @configName, @job, @messageId, @sessionId, @sourceClass, @sourceMethod, @text, @now)`);

  function insertMessages(op: Extract<SqliteWrite, { kind: 'insert-messages' }>, now: number, folded: FoldedPatches): number[] {
    return op.messages.map((message, index) => {
      const id = op.ids[index] as number;
      // A store's first message creates the row (its INSERT below); from then on it is moved ahead.
      if (id > reservedThrough && reserveIds.run(id + idsReservedAhead, id + idsReservedAhead).changes > 0) reservedThrough = id + idsReservedAhead;
      const later = folded.rows.get(id);
      insertHeader.run(
        id,
        op.namespaceIds[index],
        message.sessionId ?? id,
        message.parentId,
        later?.correspondingId !== undefined ? later.correspondingId : message.correspondingId,
        message.kind,
        message.source,
        message.target,
        message.responseRequired ? 1 : 0,
        later?.status ?? message.status,
        message.priority,
        message.description,
        later?.error ?? null,
        later?.attempts ?? 0,
        message.body.classname,
        now,
        now,
        later?.leaseOwner ?? null,
        later?.leaseUntil ?? null,
        message.traceParent ?? null,
      );
      const bytes = bodyBytes(message.body);
      const holder = sharedBodies.holderOf(bytes);
      if (holder !== undefined) {
        insertSharedBody.run(id, message.body.encoding, holder);
      } else {
        insertBody.run(id, message.body.encoding, bytes ?? message.body.data);
        sharedBodies.stored(bytes, id);
      }
      return id;
    });
  }

  function patchMessages(op: Extract<SqliteWrite, { kind: 'patch-messages' }>, now: number, folded: FoldedPatches): number[] {
    for (const p of op.patches) {
      if (folded.patches.has(p)) continue;
      const { changes } = patch.run({
        id: p.id,
        now,
        setStatus: flag(p.status),
        status: p.status ?? null,
        setCorrespondingId: flag(p.correspondingId),
        correspondingId: p.correspondingId ?? null,
        setError: flag(p.error),
        error: p.error ?? null,
        setAttempts: flag(p.attempts),
        attempts: p.attempts ?? null,
        setLeaseOwner: flag(p.leaseOwner),
        leaseOwner: p.leaseOwner ?? null,
        setLeaseUntil: flag(p.leaseUntil),
        leaseUntil: p.leaseUntil ?? null,
      });
      if (changes === 0) throw new ConveyorError('ERR_MESSAGE_NOT_FOUND', `Cannot update message ${p.id}: no message with that id exists`);
    }
    return [];
  }

  function appendEntries(op: Extract<SqliteWrite, { kind: 'append-log' }>, now: number): number[] {
    return op.entries.map((entry) => Number(appendLog.run({ nsId: op.namespaceId, ...entry, now }).lastInsertRowid));
  }

  const applyBatch = db.transaction((batch: readonly SqliteWrite[], now: number): number[][] => {
    const folded = foldPatchesIntoInserts(batch);
    return batch.map((op) => {
      switch (op.kind) {
        case 'insert-messages':
          return insertMessages(op, now, folded);
        case 'patch-messages':
          return patchMessages(op, now, folded);
        case 'append-log':
          return appendEntries(op, now);
      }
    });
  });

  return (batch) => {
    try {
      return applyBatch.immediate(batch, Date.now());
    } catch (error) {
      reservedThrough = readReserved.get() ?? 0; // the move ahead was rolled back with the rest
      throw error;
    }
  };
}

type FoldedPatch = Omit<MessagePatch, 'id'>;

/** Per message inserted in the batch, its later patches merged; and those patches, which are not run. */
export interface FoldedPatches {
  rows: Map<number, FoldedPatch>;
  patches: Set<MessagePatch>;
}

/** Ids the sqlite_sequence row is moved ahead of the highest inserted at a time. */
const idsReservedAhead = 10_000;

/**
 * The patches of a batch that follow the insert of the same message in that batch, merged per
 * message in batch order: the row is then inserted as it ends up instead of inserted and updated.
 * On the hot path a request and its completion usually share one commit (the request rides lazily
 * until the reply's commit), and each update rewrote the row and moved it in two status indexes.
 */
export function foldPatchesIntoInserts(batch: readonly SqliteWrite[]): FoldedPatches {
  const folded: FoldedPatches = { rows: new Map(), patches: new Set() };
  let inserted: Set<number> | null = null;
  for (const op of batch) {
    if (op.kind === 'insert-messages') {
      inserted ??= new Set();
      for (const id of op.ids) inserted.add(id);
    } else if (op.kind === 'patch-messages' && inserted !== null) {
      for (const patch of op.patches) {
        if (!inserted.has(patch.id)) continue;
        const { id, ...fields } = patch;
        folded.rows.set(id, mergeDefined(folded.rows.get(id) ?? {}, fields));
        folded.patches.add(patch);
      }
    }
  }
  return folded;
}

/** 1 when the patch carries the field (null included: null is a value to set), else 0. */
function flag(value: unknown): number {
  return value === undefined ? 0 : 1;
}

/**
 * The next message id of a database. Message ids are assigned by the store when a write is
 * submitted, not by SQLite, so that a session's first message carries its own id as session id in
 * one INSERT and a caller can know an id before its commit. Safe: one server writes a home's
 * database (the home lock), and an explicit id still advances the AUTOINCREMENT sequence, so ids
 * are never reused, even after a crash.
 */
export function firstFreeMessageId(db: Db): number {
  return db
    .prepare<[], number>(`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0), COALESCE((SELECT MAX(id) FROM messages), 0)) + 1`)
    .pluck()
    .get()!;
}
