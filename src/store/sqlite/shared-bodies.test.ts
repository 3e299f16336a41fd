import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { carryBodyBytes } from '../../core/message-bytes.ts';
import type { MessageBody } from '../../core/message.ts';
import { newMessage } from '../conformance/harness.ts';
import { sharedBodyMinBytes } from './shared-bodies.ts';
import type { Store } from '../store.ts';
import { openSqliteStore } from './sqlite-store.ts';

const text = JSON.stringify({ payload: 'é'.repeat(sharedBodyMinBytes), n: 7 });

/** A body carrying `bytes`, as one decoded from a worker's frame (or echoed back by it) does. */
function carrying(bytes: Buffer): MessageBody {
  const body: MessageBody = { classname: 'msg.Big', encoding: 'json', data: '' };
  carryBodyBytes(body, bytes);
  return body;
}

interface BodyRow {
  message_id: number;
  /** The length of the text the row holds itself. */
  data: number;
  data_of: number | null;
}

describe('sqlite store: a large body passed on unchanged is stored once', () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  let store: Store;
  beforeEach(async () => {
    dir = tempDir('conveyor-shared-bodies-');
    path = join(dir.path, 'store.db');
    store = await openSqliteStore({ path });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  function rows(): BodyRow[] {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare('SELECT message_id, length(data) AS data, data_of FROM message_bodies ORDER BY message_id').all() as BodyRow[];
    } finally {
      db.close();
    }
  }

  it('stores the same buffer once, and every read gives each message its whole body', async () => {
    const bytes = Buffer.from(text);
    const [first] = await store.messages.insert([newMessage({ body: carrying(bytes), status: 'completed' })]);
    const [second, third] = await store.messages.insert([
      newMessage({ body: carrying(bytes), sessionId: first!, parentId: first!, status: 'queued' }),
      newMessage({ body: carrying(bytes), sessionId: first!, parentId: first!, status: 'completed', target: 'Other' }),
    ]);
    expect(rows().map((row) => [row.message_id, row.data_of, row.data > 0])).toEqual([
      [first, null, true],
      [second, first, false],
      [third, first, false],
    ]);
    for (const id of [first!, second!, third!]) expect((await store.messages.get('USER', id))?.body.data).toBe(text);
    expect((await store.messages.unfinished('USER')).map((message) => [message.id, message.body.data])).toEqual([[second, text]]);
    expect((await store.messages.claim('USER', ['Op'], 'node-a', 5, 60_000)).map((message) => message.body.data)).toEqual([text]);
    const found = await store.messages.find('USER', { body: [{ path: ['n'], op: 'equals', value: 7 }], target: 'Other', scanLimit: 100, limit: 10 });
    expect(found.hits.map((hit) => [hit.id, hit.body])).toEqual([[third, text]]);
    expect((await store.messages.search('USER', { text: 'ééé', limit: 10 })).map((header) => header.id)).toEqual([third, second, first]);
  });

  it('stores equal text from another buffer, and small bodies, again', async () => {
    const small = Buffer.from('{"n":1}');
    await store.messages.insert([
      newMessage({ body: carrying(Buffer.from(text)) }),
      newMessage({ body: carrying(Buffer.from(text)) }),
      newMessage({ body: carrying(small) }),
      newMessage({ body: carrying(small) }),
    ]);
    expect(rows().map((row) => row.data_of)).toEqual([null, null, null, null]);
  });

  it('shares no body with a message whose batch was rolled back', async () => {
    const bytes = Buffer.from(text);
    // A batch whose first message stores the body and whose second fails (its id is taken): the
    // transaction is rolled back, and the first message's row with it.
    const [last] = await store.messages.insert([newMessage()]);
    const db = new Database(path);
    db.prepare(
      `INSERT INTO messages (id, ns_id, session_id, kind, source, target, response_required, status, priority, description, attempts, classname, created_at, updated_at)
       SELECT ?, ns_id, session_id, kind, source, target, response_required, status, priority, description, attempts, classname, created_at, updated_at FROM messages WHERE id = ?`,
    ).run(last! + 2, last!);
    db.close();
    await expect(store.messages.insert([newMessage({ body: carrying(bytes) }), newMessage()])).rejects.toThrow();
    const [stored] = await store.messages.insert([newMessage({ body: carrying(bytes) })]);
    expect(rows().find((row) => row.message_id === stored)).toMatchObject({ data_of: null });
    expect((await store.messages.get('USER', stored!))?.body.data).toBe(text);
  });

  it('gives the text to the messages still sharing it when retention removes the message holding it', async () => {
    const bytes = Buffer.from(text);
    const [holder] = await store.messages.insert([newMessage({ body: carrying(bytes), status: 'completed' })]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const bound = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [kept, alsoKept] = await store.messages.insert([
      newMessage({ body: carrying(bytes), status: 'completed' }),
      newMessage({ body: carrying(bytes), status: 'completed' }),
    ]);
    expect(rows().map((row) => row.data_of)).toEqual([null, holder, holder]);
    const purged = await store.retention.purgeMessages('USER', bound, { limit: 10, dryRun: false, after: null });
    expect(purged.count).toBe(1);
    expect(rows().map((row) => [row.message_id, row.data_of, row.data > 0])).toEqual([
      [kept, null, true],
      [alsoKept, null, true],
    ]);
    for (const id of [kept!, alsoKept!]) expect((await store.messages.get('USER', id))?.body.data).toBe(text);
    expect(await store.messages.get('USER', holder!)).toBeNull();
    // The buffer's holder is gone: the next message with it stores the text again rather than name a missing row.
    const [later] = await store.messages.insert([newMessage({ body: carrying(bytes) })]);
    expect(rows().find((row) => row.message_id === later)).toMatchObject({ data_of: null });
  });
});
