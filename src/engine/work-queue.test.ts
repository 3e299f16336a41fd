import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../core/message.ts';
import { WorkQueue } from './work-queue.ts';

const message = (id: number) => ({ id }) as StoredMessage;

describe('WorkQueue', () => {
  it('hands messages out in arrival order', async () => {
    const queue = new WorkQueue();
    for (let i = 1; i <= 3000; i++) queue.push(message(i));
    const seen: number[] = [];
    for (let i = 0; i < 3000; i++) seen.push((await queue.take())!.id);
    expect(seen).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(queue.depth).toBe(0);
  });

  it('wakes a waiting taker on push, and every taker with null on close', async () => {
    const queue = new WorkQueue();
    const first = queue.take();
    const second = queue.take();
    queue.push(message(7));
    expect((await first)!.id).toBe(7);
    queue.close();
    expect(await second).toBeNull();
    expect(await queue.take()).toBeNull();
  });

  it('keeps queued messages on close and gives them back on drain', () => {
    const queue = new WorkQueue();
    queue.push(message(1));
    queue.push(message(2));
    queue.close();
    expect(queue.drain().map((m) => m.id)).toEqual([1, 2]);
    expect(queue.depth).toBe(0);
  });

  it('holds its messages while suspended, a waiting job included, and hands them on in order once resumed', async () => {
    const queue = new WorkQueue();
    const waiting = queue.take();
    queue.setSuspended(true);
    queue.push(message(1));
    queue.push(message(2));
    let handed = 0;
    void waiting.then(() => handed++);
    await Promise.resolve();
    expect(handed).toBe(0);
    expect(queue.depth).toBe(2);
    expect(queue.hasIdleJob).toBe(false);
    queue.setSuspended(false);
    expect((await waiting)!.id).toBe(1);
    expect((await queue.take())!.id).toBe(2);
  });
});
