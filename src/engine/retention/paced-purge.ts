/**
 * A purge as a paced walk: batches of at most `batchSize` rows, and after each one a pause long
 * enough that the purge uses at most `dutyCycle` of the time (a batch that took 10 ms at a duty
 * cycle of 0.1 is followed by 90 ms of nothing). On SQLite a batch holds the event loop (the
 * driver is synchronous), so the pause is what lets the message path go on; on PostgreSQL it keeps
 * the purge's share of the database small. The hot path thus keeps about 1 − dutyCycle of its
 * throughput while a purge runs (bench/scenarios/retention.ts measures it).
 *
 * Each batch is all-or-nothing in the store; a purge stopped half way (shutdown, lost lease, kill -9)
 * leaves whole messages and is simply resumed by the next one.
 */
import type { PurgeBatch, PurgeBatchOptions, PurgePosition, RetentionRepository } from '../../store/store.ts';

export interface PurgePlan {
  /** Finished messages created before this (epoch ms) go; null: no message by age. */
  messagesBefore: number | null;
  /** Log entries logged before this go; null: no log entry. */
  logBefore: number | null;
  /** Besides the age bound: the oldest finished messages go until about this many bytes were freed (a size cap). */
  messageBytesOver?: number;
  dryRun: boolean;
}

export interface Pacing {
  /** Most rows per batch. */
  batchSize: number;
  /** The share of time the purge may use, in (0, 1]. */
  dutyCycle: number;
  /** Free pages handed back per reclaim step (SQLite incremental vacuum). */
  reclaimPages: number;
}

/**
 * A tenth of the time. The hot path's bar is 80% of its throughput while a purge runs, and a chain
 * that is CPU-bound on a quiet machine loses about the purge's share of the event loop: a tenth
 * leaves a margin that a fifth does not. On the shared machine of docs/benchmarks.md (section 10) the
 * two measure alike (85–92% of the throughput), within its noise. Still thousands of messages a second.
 */
export const defaultPacing: Pacing = { batchSize: 250, dutyCycle: 0.1, reclaimPages: 512 };

export interface PurgeReport {
  dryRun: boolean;
  /** Message headers purged (or that would be). */
  messages: number;
  bodies: number;
  logEntries: number;
  /** Estimate of the bytes the purged rows held. */
  bytes: number;
  /** How much smaller the store became after reclaiming (0 on a dry run, or where space is only reused). */
  reclaimedBytes: number;
  batches: number;
  durationMs: number;
  /** False when it stopped before the end (`keepGoing` said no): what is left goes next time. */
  complete: boolean;
}

/** The largest instant: "whatever its age" for the size cap. */
const anyAge = Number.MAX_SAFE_INTEGER;

export async function runPurge(
  retention: RetentionRepository,
  namespace: string,
  plan: PurgePlan,
  pacing: Pacing = defaultPacing,
  keepGoing: () => Promise<boolean> = async () => true,
): Promise<PurgeReport> {
  const started = performance.now();
  const report: PurgeReport = {
    dryRun: plan.dryRun,
    messages: 0,
    bodies: 0,
    logEntries: 0,
    bytes: 0,
    reclaimedBytes: 0,
    batches: 0,
    durationMs: 0,
    complete: true,
  };
  const pause = async (busyMs: number): Promise<boolean> => {
    const idleMs = (busyMs * (1 - pacing.dutyCycle)) / pacing.dutyCycle;
    // At least one turn of the event loop's timers phase, so queued I/O always gets its turn.
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.round(idleMs))));
    return keepGoing();
  };
  /** Walks batches until the end, a stop, or `enough` says so; returns false when stopped. */
  const walk = async (
    batchOf: (options: PurgeBatchOptions) => Promise<PurgeBatch>,
    add: (batch: PurgeBatch) => void,
    enough = () => false,
  ): Promise<boolean> => {
    let after: PurgePosition | null = null;
    do {
      const batchStart = performance.now();
      const batch = await batchOf({ limit: pacing.batchSize, dryRun: plan.dryRun, after });
      report.batches += 1;
      add(batch);
      after = batch.next;
      if (!(await pause(performance.now() - batchStart))) return false;
    } while (after !== null && !enough());
    return true;
  };
  const addMessages = (batch: PurgeBatch): void => {
    report.messages += batch.count;
    report.bodies += batch.bodies;
    report.bytes += batch.bytes;
  };

  let going = true;
  if (plan.messagesBefore !== null) {
    going = await walk((options) => retention.purgeMessages(namespace, plan.messagesBefore!, options), addMessages);
  }
  const over = plan.messageBytesOver ?? 0;
  if (going && over > 0) {
    const freedBefore = report.bytes;
    going = await walk(
      (options) => retention.purgeMessages(namespace, anyAge, options),
      addMessages,
      () => report.bytes - freedBefore >= over,
    );
  }
  if (going && plan.logBefore !== null) {
    going = await walk(
      (options) => retention.purgeLog(namespace, plan.logBefore!, options),
      (batch) => {
        report.logEntries += batch.count;
        report.bytes += batch.bytes;
      },
    );
  }
  if (going && !plan.dryRun && report.messages + report.logEntries > 0) {
    for (;;) {
      const stepStart = performance.now();
      const step = await retention.reclaim(pacing.reclaimPages);
      report.reclaimedBytes += step.bytes;
      going = await pause(performance.now() - stepStart);
      if (!step.more || !going) break;
    }
  }
  report.complete = going;
  report.durationMs = Math.round(performance.now() - started);
  return report;
}
