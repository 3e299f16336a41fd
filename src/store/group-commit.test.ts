import { describe, expect, it, vi } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { GroupCommitter } from './group-commit.ts';

/** A commit function that records its batches and answers each op with `op * 10`. */
function recordingCommit() {
  const batches: number[][] = [];
  return {
    batches,
    commit: (batch: readonly number[]) => {
      batches.push([...batch]);
      return batch.map((op) => op * 10);
    },
  };
}

describe('GroupCommitter', () => {
  it('commits every op submitted in the same tick in one transaction', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit });
    const results = await Promise.all([1, 2, 3, 4].map((op) => committer.submit(op)));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('never puts more than maxBatch weight in one transaction and keeps results in order', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit, maxBatch: 500 });
    const ops = Array.from({ length: 1200 }, (_, i) => i);
    const results = await Promise.all(ops.map((op) => committer.submit(op)));
    expect(results).toEqual(ops.map((op) => op * 10));
    expect(batches.map((b) => b.length)).toEqual([500, 500, 200]);
    expect(batches.flat()).toEqual(ops);
  });

  it('lets a lazy op wait for the next op and commits both in one transaction, in order', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit, lazyFlushMs: 60_000 });
    const lazy = committer.submit(1, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([]);
    const results = await Promise.all([lazy, committer.submit(2)]);
    expect(results).toEqual([10, 20]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('commits a lazy op alone once lazyFlushMs passed without another op', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit, lazyFlushMs: 30 });
    await expect(committer.submit(7, true)).resolves.toBe(70);
    expect(batches).toEqual([[7]]);
  });

  it('commits pending lazy ops on close', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit, lazyFlushMs: 60_000 });
    const lazy = committer.submit(3, true);
    await committer.close();
    await expect(lazy).resolves.toBe(30);
    expect(batches).toEqual([[3]]);
  });

  it('weighs ops with the weight function', async () => {
    const { batches, commit } = recordingCommit();
    const committer = new GroupCommitter<number, number>({ commit, maxBatch: 5, weight: (op) => op });
    await Promise.all([2, 2, 2, 9, 1].map((op) => committer.submit(op)));
    // 2+2 fits, the third 2 would make 6; an op heavier than maxBatch still goes, alone.
    expect(batches).toEqual([[2, 2], [2], [9], [1]]);
  });

  it('runs one commit at a time and batches what arrives while a commit runs', async () => {
    let running = 0;
    let maxRunning = 0;
    const batches: number[][] = [];
    let release: (() => void) | null = null;
    const committer = new GroupCommitter<number, number>({
      commit: async (batch) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        batches.push([...batch]);
        await new Promise<void>((resolve) => (release = resolve));
        running -= 1;
        return batch.map((op) => op);
      },
    });
    const first = committer.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    const later = [2, 3, 4].map((op) => committer.submit(op));
    expect(committer.pending).toBe(3);
    release!();
    await first;
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, 3, 4]]));
    release!();
    expect(await Promise.all(later)).toEqual([2, 3, 4]);
    expect(maxRunning).toBe(1);
  });

  it('rejects only the failing op when a batch fails', async () => {
    const calls: number[][] = [];
    const committer = new GroupCommitter<number, number>({
      commit: (batch) => {
        calls.push([...batch]);
        if (batch.includes(13)) throw new Error('unlucky row');
        return batch.map((op) => op);
      },
    });
    const outcomes = await Promise.allSettled([11, 12, 13, 14].map((op) => committer.submit(op)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('unlucky row');
    expect(calls).toEqual([[11, 12, 13, 14], [11], [12], [13], [14]]);
  });

  it('rejects the whole batch at once when the failure is not worth retrying op by op', async () => {
    let calls = 0;
    const committer = new GroupCommitter<number, number>({
      commit: () => {
        calls += 1;
        throw new Error('disk full');
      },
      retryAlone: (error) => (error as Error).message !== 'disk full',
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((op) => committer.submit(op)));
    expect(outcomes.map((o) => (o as PromiseRejectedResult).reason?.message)).toEqual(['disk full', 'disk full', 'disk full']);
    expect(calls).toBe(1);
  });

  it('rejects every op when the driver returns the wrong number of results', async () => {
    const committer = new GroupCommitter<number, number>({ commit: () => [1] });
    const outcomes = await Promise.allSettled([1, 2].map((op) => committer.submit(op)));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(isConveyorError((outcome as PromiseRejectedResult).reason, 'ERR_INTERNAL')).toBe(true);
    }
  });

  it('close waits for accepted ops, then refuses new ones with ERR_STORE_CLOSED', async () => {
    const committed: number[] = [];
    const committer = new GroupCommitter<number, number>({
      commit: async (batch) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        committed.push(...batch);
        return batch.map((op) => op);
      },
      maxBatch: 2,
    });
    const accepted = [1, 2, 3, 4, 5].map((op) => committer.submit(op));
    await committer.close();
    expect(committed).toEqual([1, 2, 3, 4, 5]);
    expect(await Promise.all(accepted)).toEqual([1, 2, 3, 4, 5]);
    const late = committer.submit(6);
    await expect(late).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
  });
});
