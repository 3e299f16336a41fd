import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMessage } from '../../store/conformance/harness.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { RetentionRunner, retentionLease } from './retention-runner.ts';

describe('RetentionRunner on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let errors: unknown[];
  let leases: string[];

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    errors = [];
    leases = [];
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    dir.remove();
  });

  /** A runner whose coordinator answers the lease with `hold` (called once per ask). */
  function runner(hold: () => boolean, batchSize = 250): RetentionRunner {
    const coordinator = {
      holdLease: async (name: string) => {
        leases.push(name);
        return hold();
      },
    };
    return new RetentionRunner(store, coordinator, { pacing: { batchSize, dutyCycle: 1 }, onError: (error) => errors.push(error) });
  }

  /** Finished messages, then a queued one; the clock moves past them so that "0 days" covers them all. */
  async function fill(finished: number): Promise<{ finished: number[]; queued: number }> {
    const ids = await store.messages.insert(Array.from({ length: finished }, () => newMessage({ status: 'completed' })));
    const [queued] = (await store.messages.insert([newMessage()])) as [number];
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { finished: ids, queued };
  }

  const remaining = async () => (await store.retention.usage('USER')).messages;

  it("applies each namespace's policy under the lease, keeps live messages, records the run and logs it", async () => {
    const { queued } = await fill(12);
    await store.retention.putPolicy('USER', { messageDays: 0, logDays: null, maxStoreBytes: null });
    const run = runner(() => true, 5);
    await run.runOnce();
    expect(leases[0]).toBe(retentionLease);
    expect(await remaining()).toBe(1);
    expect((await store.messages.get('USER', queued))?.status).toBe('queued');
    expect(run.lastRun('USER')).toMatchObject({ error: null, report: { messages: 12, batches: 3, complete: true } });
    expect((await store.log.top('USER', 5)).map((entry) => entry.text)).toContainEqual(
      expect.stringMatching(/^Retention policy purged 12 messages and 0 log entries/),
    );
    expect(errors).toEqual([]);
  });

  it('does nothing while another node holds the lease', async () => {
    await fill(3);
    await store.retention.putPolicy('USER', { messageDays: 0, logDays: null, maxStoreBytes: null });
    const run = runner(() => false);
    await run.runOnce();
    expect(await remaining()).toBe(4);
    expect(run.lastRun('USER')).toBeNull();
  });

  it('purges the oldest finished messages past the size cap, and stops once enough is freed', async () => {
    const { finished } = await fill(20);
    const usage = await store.retention.usage('USER');
    // One byte over the cap: the first batch frees more than that.
    await store.retention.putPolicy('USER', { messageDays: null, logDays: null, maxStoreBytes: usage.dataBytes - 1 });
    const run = runner(() => true, 5);
    await run.runOnce();
    expect(run.lastRun('USER')?.report).toMatchObject({ messages: 5, batches: 1 });
    for (const id of finished.slice(0, 5)) expect(await store.messages.get('USER', id)).toBeNull();
    for (const id of finished.slice(5)) expect((await store.messages.get('USER', id))?.status).toBe('completed');
  });

  it('stops between batches once stopped, leaving the rest for the next run', async () => {
    await fill(12);
    await store.retention.putPolicy('USER', { messageDays: 0, logDays: null, maxStoreBytes: null });
    let stopped: Promise<void> | null = null;
    // A shutdown while the first batch is in hand: the run ends after that batch.
    const retention = new Proxy(store.retention, {
      get: (target, name) => {
        if (name === 'purgeMessages')
          return (...args: Parameters<Store['retention']['purgeMessages']>) => {
            stopped ??= run.stop();
            return target.purgeMessages(...args);
          };
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const stopping = { retention, log: store.log };
    const run = new RetentionRunner(
      stopping,
      { holdLease: async () => true },
      { pacing: { batchSize: 5, dutyCycle: 1 }, onError: (error) => errors.push(error) },
    );
    await run.runOnce();
    await stopped;
    expect(run.lastRun('USER')?.report).toMatchObject({ messages: 5, batches: 1, complete: false });
    expect(await remaining()).toBe(8);
  });
});
