/**
 * The background side of retention: every `intervalMs`, each namespace's policy is applied —
 * finished messages older than its message days, log entries older than its log days, then, when
 * the store is over the size cap, the oldest finished messages until it is under — as a paced
 * purge (paced-purge.ts) followed by a reclaim of the freed space.
 *
 * On a cluster sharing PostgreSQL only the node holding the lease `conveyor.retention` runs it; the
 * lease is renewed between batches and a node that loses it stops at once (another took over, or its
 * database connection went). A single server always holds it. A run never overlaps the previous one.
 */
import type { Store } from '../../store/store.ts';
import type { Coordinator } from '../coordinator.ts';
import { defaultPacing, runPurge, type Pacing } from './paced-purge.ts';
import { policyBounds, type RetentionRun } from './namespace-retention.ts';

export interface RetentionRunnerOptions {
  /** Between runs (default 10 minutes). */
  intervalMs?: number;
  /** Before the first run after start (default 1 minute: let productions start first). */
  firstRunMs?: number;
  pacing?: Partial<Pacing>;
  onError: (error: unknown) => void;
}

export const retentionLease = 'conveyor.retention';

export class RetentionRunner {
  readonly #store: Pick<Store, 'retention' | 'log'>;
  readonly #coordinator: Pick<Coordinator, 'holdLease'>;
  readonly #intervalMs: number;
  readonly #firstRunMs: number;
  readonly #pacing: Pacing;
  readonly #onError: (error: unknown) => void;
  readonly #lastRuns = new Map<string, RetentionRun>();
  #timer: NodeJS.Timeout | null = null;
  #run: Promise<void> | null = null;
  #stopped = false;

  /** Of the store only retention and the log; of the coordinator only the lease (one node at a time). */
  constructor(store: Pick<Store, 'retention' | 'log'>, coordinator: Pick<Coordinator, 'holdLease'>, options: RetentionRunnerOptions) {
    this.#store = store;
    this.#coordinator = coordinator;
    this.#intervalMs = options.intervalMs ?? 600_000;
    this.#firstRunMs = options.firstRunMs ?? 60_000;
    this.#pacing = { ...defaultPacing, ...options.pacing };
    this.#onError = options.onError;
  }

  get pacing(): Pacing {
    return this.#pacing;
  }

  start(): void {
    this.#schedule(this.#firstRunMs);
  }

  /** Stops the schedule and waits for a run in progress to stop at its next batch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#run;
  }

  lastRun(namespace: string): RetentionRun | null {
    return this.#lastRuns.get(namespace) ?? null;
  }

  /** One pass over every policy now (the timer calls it; tests too). Skipped when another node holds the lease. */
  runOnce(): Promise<void> {
    this.#run ??= this.#pass().finally(() => {
      this.#run = null;
    });
    return this.#run;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.runOnce()
        .catch(this.#onError)
        .finally(() => this.#schedule(this.#intervalMs));
    }, delayMs);
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    const leaseTtlMs = 60_000;
    if (this.#stopped || !(await this.#coordinator.holdLease(retentionLease, leaseTtlMs))) return;
    let renewedAt = Date.now();
    const keepGoing = async (): Promise<boolean> => {
      if (this.#stopped) return false;
      if (Date.now() - renewedAt < leaseTtlMs / 4) return true;
      renewedAt = Date.now();
      return this.#coordinator.holdLease(retentionLease, leaseTtlMs);
    };
    for (const { namespace, policy } of await this.#store.retention.policies()) {
      if (!(await keepGoing())) return;
      const at = Date.now();
      try {
        let messageBytesOver = 0;
        if (policy.maxStoreBytes !== null) {
          const usage = await this.#store.retention.usage(namespace);
          messageBytesOver = Math.max(0, usage.dataBytes - policy.maxStoreBytes);
        }
        const report = await runPurge(
          this.#store.retention,
          namespace,
          { ...policyBounds(policy, at), messageBytesOver, dryRun: false },
          this.#pacing,
          keepGoing,
        );
        this.#lastRuns.set(namespace, { at, report, error: null });
        if (report.messages + report.logEntries > 0) {
          await this.#store.log.append(namespace, [
            {
              type: 'Info',
              configName: '',
              job: String(process.pid),
              messageId: null,
              sessionId: null,
              sourceClass: 'Conveyor.Retention',
              sourceMethod: 'policy',
              text: `Retention policy purged ${report.messages} messages and ${report.logEntries} log entries (about ${report.bytes} bytes; ${report.reclaimedBytes} bytes given back)`,
            },
          ]);
        }
      } catch (error) {
        this.#lastRuns.set(namespace, { at, report: null, error: error instanceof Error ? error.message : String(error) });
        this.#onError(error);
      }
    }
  }
}
