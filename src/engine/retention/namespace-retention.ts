/**
 * Retention of one namespace, behind the namespace façade: its policy, what it stores, and an
 * operator's purge (`POST /messages/purge`). A purge is paced like the background one
 * (paced-purge.ts), writes one event-log entry naming the user, and only one purge of a namespace
 * runs at a time on this server (a second one waits for the first, then walks what is left).
 */
import { ConveyorError } from '../../core/errors.ts';
import type { RetentionPolicy, Store, StoreUsage } from '../../store/store.ts';
import { runPurge, type Pacing, type PurgeReport } from './paced-purge.ts';
import { days, purgeBound, type PurgeBoundInput } from './purge-bound.ts';

export interface PurgeRequest extends PurgeBoundInput {
  /** Count and measure only. */
  dryRun?: boolean | undefined;
  /** Purge event-log entries older than the same bound too (default true). */
  includeLog?: boolean | undefined;
}

export interface PurgeOutcome extends PurgeReport {
  /** Epoch ms: what was created (logged) before it was purged. */
  before: number;
}

/** The last background run of a namespace's policy on this server, if any. */
export interface RetentionRun {
  at: number;
  report: PurgeReport | null;
  error: string | null;
}

export interface RetentionOperations {
  /** The namespace's policy, or null when none is set (nothing is purged in the background). */
  policy(): Promise<RetentionPolicy | null>;
  /** Sets or (null) removes the policy; every number must be 0 or more. */
  setPolicy(policy: RetentionPolicy | null): Promise<void>;
  usage(): Promise<StoreUsage>;
  purge(request: PurgeRequest, user: string): Promise<PurgeOutcome>;
  /** The last background run on this server (null before the first). */
  lastRun(): RetentionRun | null;
}

/** The longest an operator's purge runs before it answers with `complete: false`. */
export const purgeTimeBudgetMs = 240_000;

export class NamespaceRetention implements RetentionOperations {
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly pacing: Pacing,
    private readonly lastRuns: (namespace: string) => RetentionRun | null,
  ) {}

  policy(): Promise<RetentionPolicy | null> {
    return this.store.retention.getPolicy(this.namespace);
  }

  async setPolicy(policy: RetentionPolicy | null): Promise<void> {
    if (policy !== null) checkPolicy(policy);
    await this.store.retention.putPolicy(this.namespace, policy);
  }

  usage(): Promise<StoreUsage> {
    return this.store.retention.usage(this.namespace);
  }

  lastRun(): RetentionRun | null {
    return this.lastRuns(this.namespace);
  }

  async purge(request: PurgeRequest, user: string): Promise<PurgeOutcome> {
    const before = purgeBound(request, Date.now());
    const dryRun = request.dryRun === true;
    const plan = { messagesBefore: before, logBefore: request.includeLog === false ? null : before, dryRun };
    // One purge of the namespace at a time here: a second waits (a dry run too, so its counts are not racing a delete).
    const run = this.#running.then(() => {
      // An answer within the API's request timeout (5 min by default): a larger purge stops here, says so, and goes on when asked again.
      const deadline = Date.now() + purgeTimeBudgetMs;
      return runPurge(this.store.retention, this.namespace, plan, this.pacing, async () => Date.now() < deadline);
    });
    this.#running = run.catch(() => undefined);
    const report = await run;
    if (!dryRun) {
      await this.store.log.append(this.namespace, [
        {
          type: 'Info',
          configName: '',
          job: String(process.pid),
          messageId: null,
          sessionId: null,
          sourceClass: 'Conveyor.Retention',
          sourceMethod: 'purge',
          text: `${user} purged ${report.messages} messages and ${report.logEntries} log entries older than ${new Date(before).toISOString()} (about ${report.bytes} bytes; ${report.reclaimedBytes} bytes given back)`,
        },
      ]);
    }
    return { ...report, before };
  }
}

/** Days and the size cap: null (not set) or a number, 0 or more; a cap a whole number of bytes. */
export function checkPolicy(policy: RetentionPolicy): void {
  if (policy.messageDays !== null) days('messageDays', policy.messageDays);
  if (policy.logDays !== null) days('logDays', policy.logDays);
  const cap = policy.maxStoreBytes;
  if (cap !== null && (!Number.isSafeInteger(cap) || cap <= 0)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `maxStoreBytes must be a whole number of bytes above 0, not ${String(cap)}`);
  }
}

/** The message and log bounds a policy sets now (null: that kind is kept). */
export function policyBounds(policy: RetentionPolicy, now: number): { messagesBefore: number | null; logBefore: number | null } {
  const dayMs = 86_400_000;
  return {
    messagesBefore: policy.messageDays === null ? null : now - policy.messageDays * dayMs,
    logBefore: policy.logDays === null ? null : now - policy.logDays * dayMs,
  };
}
