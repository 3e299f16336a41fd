/**
 * Queue and message controls on a real engine with built-in components: SQLite (single process,
 * in-memory queues) and PostgreSQL (claiming queues, skipped without PG_URL).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../core/message.ts';
import { isSuspended } from '../core/message-suspension.ts';
import { newItem, newProduction } from '../core/production.ts';
import { dropSchema, describePg, pgUrl, uniqueSchema } from '../store/postgres/pg-test-support.ts';
import { openPostgresStore } from '../store/postgres/postgres-store.ts';
import type { NewMessage, Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { expectCode, freshEngineForEachTest } from '../../test/support/engine-fixture.ts';
import { Engine } from './engine.ts';
import type { NamespaceOperations } from './namespace-operations.ts';

function production(dir: string) {
  return newProduction('Demo.Controls', [
    newItem('Echo', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: join(dir, 'echo.jsonl') }] }),
    newItem('Other', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: join(dir, 'other.jsonl') }] }),
    // Its record folder does not exist: every request it takes fails.
    newItem('Broken', 'Conveyor.Operation.Echo', { settings: [{ target: 'Host', name: 'FilePath', value: join(dir, 'missing', 'x.jsonl') }] }),
  ]);
}

/** An asynchronous request nobody waits for, as a service's send_request_async leaves it. */
function asyncRequest(target: string, text: string): NewMessage {
  return {
    namespace: 'USER',
    sessionId: null,
    parentId: null,
    correspondingId: null,
    kind: 'request',
    source: 'Svc',
    target,
    responseRequired: false,
    status: 'queued',
    priority: 0,
    description: '',
    body: { classname: 'Ens.StringRequest', encoding: 'native', data: JSON.stringify({ StringValue: text }) },
  };
}

function recorded(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse((JSON.parse(line) as { data: string }).data) as { StringValue: string }).StringValue);
}

async function finished(store: Store, id: number): Promise<StoredMessage> {
  return eventually(async () => {
    const message = await store.messages.get('USER', id);
    return message && message.status !== 'queued' && message.status !== 'delivered' ? message : undefined;
  }, `message ${id} finished`);
}

/** Event-log entries are group-committed: they show up shortly after the action. */
async function expectLogged(user: NamespaceOperations, texts: string[]): Promise<void> {
  await eventually(
    async () => {
      const log = (await user.log.search({ limit: 100 })).map((entry) => entry.text);
      return texts.every((text) => log.includes(text)) || undefined;
    },
    `the event log names ${texts.join(' | ')}`,
  );
}

/** The behaviour both coordinators share. */
function describeControls(setUp: () => { store: Store; user: NamespaceOperations; dir: string }): void {
  it('holds a suspended queue across a restart, lets an abort take a request out, delivers the rest once resumed', async () => {
    const { store, user, dir } = setUp();
    await user.putDefinition(production(dir));
    await user.setDefault('Demo.Controls');
    // Suspended before the production starts: the suspension is in the store, not in a running queue.
    const suspension = await user.controls.suspendQueue('Echo', 'ops');
    expect(suspension).toMatchObject({ item: 'Echo', suspendedBy: 'ops' });
    const [first, second] = await store.messages.insert([asyncRequest('Echo', 'one'), asyncRequest('Echo', 'two')]);
    await user.start('Demo.Controls');
    // A request to another item, sent after them, is handled: the suspended ones are still waiting.
    const [other] = await store.messages.insert([asyncRequest('Other', 'later')]);
    await user.controls.resend([other!], 'ops');
    await eventually(() => recorded(join(dir, 'other.jsonl')).length > 0, 'the other item handled its request');
    expect((await store.messages.get('USER', first!))?.status).toBe('queued');
    expect(recorded(join(dir, 'echo.jsonl'))).toEqual([]);
    const echo = (await user.controls.queues()).find((q) => q.item === 'Echo');
    expect(echo).toMatchObject({ waiting: 2, inProgress: 0, suspension: { suspendedBy: 'ops' } });

    await user.restart();
    expect((await user.controls.queues()).find((q) => q.item === 'Echo')?.suspension?.suspendedBy).toBe('ops');
    expect((await store.messages.get('USER', second!))?.status).toBe('queued');

    expect(await user.controls.abort([first!], 'ops')).toEqual([{ id: first, done: true, reason: null }]);
    expect(await store.messages.get('USER', first!)).toMatchObject({ status: 'discarded', error: 'Aborted by ops' });
    await user.controls.resumeQueue('Echo', 'ops');
    expect((await finished(store, second!)).status).toBe('completed');
    expect(recorded(join(dir, 'echo.jsonl'))).toEqual(['two']);
    expect((await user.controls.queues()).find((q) => q.item === 'Echo')?.suspension ?? null).toBeNull();

    await expectLogged(user, [
      'Queue of Echo suspended by ops: its messages stay queued until it is resumed',
      'Queue of Echo resumed by ops',
      `Message ${first} aborted by ops: taken out of the queue of Echo`,
    ]);
  });

  it('keeps a failed request nobody waited for aside as suspended; resend and discard deal with it', async () => {
    const { store, user, dir } = setUp();
    await user.putDefinition(production(dir));
    await user.start('Demo.Controls');
    const [a, b] = await store.messages.insert([asyncRequest('Broken', 'first'), asyncRequest('Broken', 'second')]);
    // Recovery at start is the path into the queue for rows written straight into the store: restart.
    await user.restart();
    const failed = await finished(store, a!);
    expect(failed.status).toBe('error');
    expect(isSuspended(failed)).toBe(true);
    await finished(store, b!);
    expect((await user.controls.suspended({ limit: 10 })).map((m) => m.id)).toEqual([b, a]);
    expect((await user.controls.queues()).find((q) => q.item === 'Broken')?.suspendedMessages).toBe(2);
    const state = await user.controls.message(a!);
    expect(state).toMatchObject({ suspended: true, actions: ['discard', 'resend', 'edit-resend'] });

    const [resent] = await user.controls.resend([a!], 'ops', 'Echo');
    expect(resent).toMatchObject({ id: a, target: 'Echo' });
    expect((await finished(store, resent!.resendId)).status).toBe('completed');
    expect(recorded(join(dir, 'echo.jsonl'))).toEqual(['first']);
    expect((await store.messages.get('USER', a!))?.status).toBe('discarded');
    expect((await user.controls.message(a!)).links.resends).toMatchObject([{ resendId: resent!.resendId, user: 'ops', edited: false }]);
    expect((await user.controls.message(resent!.resendId)).links.resentFrom).toMatchObject({ originalId: a });

    expect(await user.controls.discard([b!], 'ops')).toEqual([{ id: b, done: true, reason: null }]);
    expect(await user.controls.suspended({ limit: 10 })).toEqual([]);
    await expectLogged(user, [`Message ${a} resent by ops as message ${resent!.resendId} to Echo`, `Message ${b} (suspended) discarded by ops`]);
  });

  it('edits and resends a request with a new body, linked to its original', async () => {
    const { store, user, dir } = setUp();
    await user.putDefinition(production(dir));
    await user.start('Demo.Controls');
    const [original] = await store.messages.insert([asyncRequest('Broken', 'old')]);
    await user.restart();
    await finished(store, original!);
    const outcome = await user.controls.editAndResend(original!, 'ops', { body: { StringValue: 'new' }, target: 'Echo' });
    expect((await finished(store, outcome.resendId)).status).toBe('completed');
    expect(recorded(join(dir, 'echo.jsonl'))).toEqual(['new']);
    expect((await user.controls.message(outcome.resendId)).links.resentFrom).toMatchObject({ originalId: original, edited: true });
    await expectCode(user.controls.editAndResend(original!, 'ops', { body: '[1, 2]', classname: 'msg.Python' }), 'ERR_INVALID_INPUT', /JSON object/);
  });

  it('refuses what the messages do not allow, naming the message, and changes nothing', async () => {
    const { store, user, dir } = setUp();
    await user.putDefinition(production(dir));
    const [queued, done] = await store.messages.insert([asyncRequest('Echo', 'q'), asyncRequest('Echo', 'd')]);
    await store.messages.update([{ id: done!, status: 'completed' }]);
    await expectCode(user.controls.resend([queued!], 'ops'), 'ERR_PRODUCTION_NOT_RUNNING');
    await expectCode(
      user.controls.abort([queued!, done!], 'ops'),
      'ERR_MESSAGE_STATE',
      new RegExp(`message ${done}: it is completed, not queued; nothing was changed`),
    );
    expect((await store.messages.get('USER', queued!))?.status).toBe('queued');
    await expectCode(user.controls.discard([queued!], 'ops'), 'ERR_MESSAGE_STATE', /still queued \(abort takes it out of its queue\)/);
    await expectCode(user.controls.abort([999_999], 'ops'), 'ERR_MESSAGE_NOT_FOUND', /999999/);
    await expectCode(user.controls.abort([], 'ops'), 'ERR_INVALID_INPUT');
    await expectCode(user.controls.abort([queued!, queued!], 'ops'), 'ERR_INVALID_INPUT', /twice/);
    await expectCode(user.controls.suspendQueue('Nobody', 'ops'), 'ERR_NO_DEFAULT_PRODUCTION');
    await user.setDefault('Demo.Controls');
    await expectCode(user.controls.suspendQueue('Nobody', 'ops'), 'ERR_ITEM_NOT_FOUND', /Nobody/);
    await user.start();
    await expectCode(user.controls.resend([queued!], 'ops', 'Nobody'), 'ERR_ITEM_NOT_FOUND', /nothing was resent/);
    expect(await store.controls.suspendedQueues('USER')).toEqual([]);
  });
}

describe('queue and message controls, single process (SQLite)', () => {
  let fresh: { store: Store; user: NamespaceOperations; dir: string };
  freshEngineForEachTest({ drainTimeoutMs: 2000, graceMs: 1000 }, (f) => (fresh = { store: f.store, user: f.user, dir: f.dir.path }));
  describeControls(() => fresh);
});

describePg('queue and message controls, PostgreSQL coordinator', () => {
  let fresh: { store: Store; user: NamespaceOperations; dir: string };
  let engine: Engine;
  let schema: string;
  let dir: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    schema = uniqueSchema('ctl');
    dir = tempDir();
    const store = await openPostgresStore(pgUrl, { schema });
    engine = await Engine.open(store, { drainTimeoutMs: 2000, graceMs: 1000, leaseMs: 2000 });
    fresh = { store, user: await engine.namespace('USER'), dir: dir.path };
  });
  afterEach(async () => {
    await engine.close();
    await fresh.store.close();
    await dropSchema(schema);
    dir.remove();
  });
  describeControls(() => fresh);
});
