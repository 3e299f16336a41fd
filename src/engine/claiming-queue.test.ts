import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import type { StoredMessage } from '../core/message.ts';
import { newMessage } from '../store/conformance/harness.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { eventually, tempDir } from '../../test/support/temp-dir.ts';
import { ClaimingQueue, type ClaimingQueueOptions } from './claiming-queue.ts';

describe('ClaimingQueue on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let queues: ClaimingQueue[];
  let errors: unknown[];

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    queues = [];
    errors = [];
  });
  afterEach(async () => {
    for (const queue of queues) queue.close();
    await store.close().catch(() => {});
    dir.remove();
  });

  function queue(options: Partial<ClaimingQueueOptions> = {}): ClaimingQueue {
    const created = new ClaimingQueue(store, {
      namespace: 'USER',
      target: 'Op',
      nodeId: 'node-a',
      leaseMs: 60_000,
      batch: 1,
      pollMs: 50,
      onError: (error) => errors.push(error),
      ...options,
    });
    queues.push(created);
    return created;
  }

  const insert = (count: number) => store.messages.insert(Array.from({ length: count }, () => newMessage({ target: 'Op' })));

  it('hands out a queued request, claimed in the store for this node', async () => {
    const [id] = await insert(1);
    const taken = await queue().take();
    expect(taken?.id).toBe(id);
    expect(await store.messages.get('USER', id!)).toMatchObject({ status: 'delivered', leaseOwner: 'node-a' });
  });

  it('claims nothing while suspended, gives back what it held, and claims again once resumed', async () => {
    const items = queue({ batch: 2 });
    const [first, second] = await insert(2);
    expect((await items.take())?.id).toBe(first);
    await eventually(async () => (await store.messages.get('USER', second!))?.status === 'delivered', 'the second request claimed ahead');
    items.setSuspended(true);
    expect(items.reserveLocal()).toBe(false);
    await eventually(async () => (await store.messages.get('USER', second!))?.status === 'queued', 'the held request given back');
    const waiting = items.take();
    const [third] = await insert(1);
    items.wake();
    expect(await store.messages.get('USER', third!)).toMatchObject({ status: 'queued', leaseOwner: null });
    items.setSuspended(false);
    expect((await waiting)?.id).toBe(second);
    expect((await items.take())?.id).toBe(third);
    expect(errors).toEqual([]);
  });

  it('wakes a waiting job when a request is queued later', async () => {
    const items = queue();
    const waiting = items.take();
    expect(items.hasIdleJob).toBe(true);
    const [id] = await insert(1);
    items.push((await store.messages.get('USER', id!))!);
    expect((await waiting)?.id).toBe(id);
  });

  it('claims again when a request is pushed while a claim is under way (no wait for the poll)', async () => {
    const items = queue({ pollMs: 600_000 });
    const claim = store.messages.claim.bind(store.messages);
    let pushed: number | undefined;
    vi.spyOn(store.messages, 'claim').mockImplementationOnce(async (...args) => {
      const found = await claim(...args);
      // Queued and pushed after this claim read the table: only a second claim can see it.
      [pushed] = await insert(1);
      items.push((await store.messages.get('USER', pushed!))!);
      return found;
    });
    expect((await items.take())?.id).toBe(pushed);
  });

  it('hands a request inserted already claimed for this node to a waiting job, without a claim', async () => {
    const items = queue({ pollMs: 600_000 });
    const waiting = items.take();
    await eventually(() => items.reserveLocal(), 'the first claim to find the queue empty');
    const claims = vi.spyOn(store.messages, 'claim');
    // What insertClaimed writes (the PostgreSQL store does it in one statement).
    const [id] = await insert(1);
    await store.messages.update([{ id: id!, status: 'delivered', leaseOwner: 'node-a', leaseUntil: Date.now() + 60_000 }]);
    items.expectHandoff(id!);
    expect(items.hasIdleJob).toBe(true);
    items.push((await store.messages.get('USER', id!))!);
    expect((await waiting)?.id).toBe(id);
    expect(claims).not.toHaveBeenCalled();
  });

  it('hands nothing over while an older request may be queued, so one job keeps the order', async () => {
    const items = queue({ pollMs: 600_000 });
    const [older] = await insert(1);
    items.push((await store.messages.get('USER', older!))!);
    expect(items.reserveLocal()).toBe(false);
    expect((await items.take())?.id).toBe(older);
  });

  it('finds a request queued without a push through its fallback poll', async () => {
    const waiting = queue({ pollMs: 20 }).take();
    const [id] = await insert(1);
    expect((await waiting)?.id).toBe(id);
  });

  it('never hands the same request to two nodes; each claims up to its batch ahead', async () => {
    const ids = await insert(6);
    const a = queue({ nodeId: 'node-a', batch: 3 });
    const b = queue({ nodeId: 'node-b', batch: 3 });
    const first = await Promise.all([a.take(), b.take()]);
    expect([a.depth, b.depth]).toEqual([2, 2]);
    const rest = await Promise.all([a.take(), a.take(), b.take(), b.take()]);
    const byNode = { 'node-a': [first[0], rest[0], rest[1]], 'node-b': [first[1], rest[2], rest[3]] };
    expect(
      Object.values(byNode)
        .flat()
        .map((m) => m?.id)
        .sort((x, y) => x! - y!),
    ).toEqual(ids);
    for (const [node, messages] of Object.entries(byNode)) {
      for (const message of messages) expect((await store.messages.get('USER', message!.id))?.leaseOwner).toBe(node);
    }
  });

  it('answers every waiting job with null on close, and later takes too', async () => {
    const items = queue();
    const waiting = [items.take(), items.take()];
    items.close();
    expect(await Promise.all(waiting)).toEqual([null, null]);
    expect(await items.take()).toBeNull();
  });

  it('gives claimed but untaken requests back to the cluster on drain, handing none on locally', async () => {
    const ids = await insert(3);
    const items = queue({ batch: 3 });
    const first = await items.take();
    expect(first?.id).toBe(ids[0]);
    expect(items.depth).toBe(2);
    expect(items.peekOldest()?.id).toBe(ids[1]);
    items.close();
    expect(items.drain()).toEqual([]);
    expect(items.depth).toBe(0);
    const back = await eventually(async () => {
      const rows = await Promise.all(ids.slice(1).map((id) => store.messages.get('USER', id)));
      return rows.every((row) => row?.status === 'queued' && row.leaseOwner === null) ? rows : undefined;
    }, 'the untaken requests queued again');
    expect(back).toHaveLength(2);
    const other = queue({ nodeId: 'node-b', batch: 2 });
    expect([(await other.take())?.id, (await other.take())?.id]).toEqual(ids.slice(1));
  });

  it('renews the lease of a request it holds until the job is done with it', async () => {
    await insert(1);
    const items = queue({ leaseMs: 300 });
    const taken = (await items.take()) as StoredMessage;
    const renewed = await eventually(
      async () => {
        const row = await store.messages.get('USER', taken.id);
        return row && row.leaseUntil! > taken.leaseUntil! ? row : undefined;
      },
      'a renewed lease',
      10_000,
    );
    expect(renewed.leaseOwner).toBe('node-a');
    items.done(taken.id);
  });

  it('reports a failed claim to onError and keeps the job waiting', async () => {
    const items = queue();
    await store.close();
    let settled = false;
    const waiting = items.take().then((message) => {
      settled = true;
      return message;
    });
    await eventually(() => errors.length > 0, 'the claim error');
    expect(isConveyorError(errors[0], 'ERR_STORE_CLOSED')).toBe(true);
    expect(settled).toBe(false);
    items.close();
    expect(await waiting).toBeNull();
  });
});
