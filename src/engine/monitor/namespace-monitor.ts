/**
 * The monitor of one namespace on this node: the live figures of its items (in memory, see
 * item-statistics.ts) and the alerts. The running production reports what happens to its items
 * (`handled`, `received`, `sent` on the message path: counter bumps only; `trouble` when something
 * goes wrong); a check once a second looks at queue thresholds and inactivity. An alert is stored
 * (counted into the open alert of its key), and — unless it repeats one sent within the production's
 * `AlertActionWindow` (default 60 s) — written to the event log as an `Alert` entry and sent as an
 * `Ens.AlertRequest` to the production's item named `Ens.Alert`, when it has one.
 */
import { errorText } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import type { ItemDefinition, ProductionDefinition } from '../../core/production.ts';
import type { AlertCategory, AlertOccurrence, StoredAlert } from '../../store/alerts.ts';
import type { QueueDepth, Store } from '../../store/store.ts';
import type { EventLog } from '../event-log.ts';
import { alertSettingsOf, type AlertSettings } from './alert-settings.ts';
import { failureKey, RepeatGate, RestartCounter } from './alert-rules.ts';
import { NamespaceStatistics } from './item-statistics.ts';
import { operatorQueueDepths, type QueueHolder } from '../queue-depths.ts';

/** The name IRIS gives the production's alert processor: alerts are sent to the item of this name. */
export const alertItemName = 'Ens.Alert';

/** What went wrong with an item, as the running production reports it. */
export type ItemTrouble =
  { kind: 'failure'; messageId: number | null; text: string } | { kind: 'item-error'; text: string } | { kind: 'restart'; text: string };

/** The part of an item host the monitor reads (its queue: what it holds in hand is in progress, not waiting). */
export interface MonitoredItem extends QueueHolder {
  readonly item: ItemDefinition;
  readonly state: string;
}

/** The part of the running production the monitor reads and sends through. */
export interface MonitoredProduction {
  readonly name: string;
  readonly definition: ProductionDefinition;
  readonly hosts: ReadonlyMap<string, MonitoredItem>;
  sendAlert(source: string, body: MessageBody): Promise<void>;
}

export interface NamespaceMonitorOptions {
  /** The clock (tests). */
  now?: () => number;
  /** How often queue thresholds and inactivity are checked (default 1 s). */
  checkIntervalMs?: number;
  onError?: (error: unknown) => void;
}

/** Restarts of an item's jobs within this period that make an alert ("restarts repeatedly"). */
const restartThreshold = 3;
const restartPeriodMs = 5 * 60_000;
const defaultActionWindowSeconds = 60;

export class NamespaceMonitor {
  readonly statistics = new NamespaceStatistics();
  readonly #now: () => number;
  readonly #restarts = new RestartCounter(restartThreshold, restartPeriodMs);
  #gate: RepeatGate;
  #gateWindowMs: number;
  /** Failure alerts waiting out their item's AlertGracePeriod; a success of the item cancels its own. */
  readonly #graced = new Map<string, NodeJS.Timeout>();
  /** Conditions under way (a queue past its threshold, an inactive item): alerted once when they begin. */
  readonly #conditions = new Set<string>();
  /** When this node first saw each item running (inactivity counts from there when it had no activity). */
  readonly #watchedSince = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;
  #checking = false;
  readonly #onError: (error: unknown) => void;

  constructor(
    readonly namespace: string,
    private readonly store: Store,
    private readonly log: EventLog,
    private readonly running: () => MonitoredProduction | null,
    options: NamespaceMonitorOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
    this.#gateWindowMs = defaultActionWindowSeconds * 1000;
    this.#gate = new RepeatGate(this.#gateWindowMs);
    this.#timer = setInterval(() => void this.check(), options.checkIntervalMs ?? 1000);
    this.#timer.unref();
  }

  /** The message path: a request an item finished handling, `ms` after it took it. Counter bumps only. */
  handled(item: string, ok: boolean, ms: number): void {
    this.statistics.of(item).handled(ok, ms, this.#now());
    if (ok && this.#graced.size > 0) this.#cancelGraced(item);
  }

  /** The message path: `source` sent a request to `target` at `now` (null: an alert request, not the source's activity). */
  exchanged(source: string | null, target: string, now: number): void {
    if (source !== null) this.statistics.of(source).sent(now);
    this.statistics.of(target).received(now);
  }

  /** Whether an item is inactive now (past its InactivityTimeout). */
  isInactive(item: string): boolean {
    return this.#conditions.has(conditionKey('inactivity', item));
  }

  /** Whether an item's queue is past its QueueCountAlert now. */
  isOverQueueThreshold(item: string): boolean {
    return this.#conditions.has(conditionKey('queue', item));
  }

  /** Something went wrong with an item; raises the alert its settings ask for. Never throws. */
  trouble(item: string, trouble: ItemTrouble): void {
    const settings = this.#settingsOf(item);
    const now = this.#now();
    switch (trouble.kind) {
      case 'failure': {
        if (!settings?.alertOnError) return;
        const occurrence: AlertOccurrence = { source: item, category: 'failure', key: failureKey(trouble.text), text: trouble.text, time: now };
        if (settings.gracePeriodMs > 0) this.#raiseAfterGrace(item, occurrence, settings.gracePeriodMs);
        else this.raise(occurrence);
        return;
      }
      case 'item-error':
        this.raise({ source: item, category: 'item-error', key: failureKey(trouble.text), text: trouble.text, time: now });
        return;
      case 'restart': {
        const count = this.#restarts.restarted(item, now);
        if (count === null) return;
        const text = `Item ${item} restarted ${count} times within ${restartPeriodMs / 60_000} minutes: ${trouble.text}`;
        this.raise({ source: item, category: 'restarts', key: 'restarts', text, time: now });
        return;
      }
    }
  }

  /** Records an alert, and unless it repeats one sent within the window, logs and sends it. Never throws. */
  raise(occurrence: AlertOccurrence): void {
    this.#adoptWindow();
    const send = this.#gate.admit(`${occurrence.source}\u0000${occurrence.category}\u0000${occurrence.key}`, occurrence.time);
    void this.#deliver(occurrence, send).catch((error: unknown) => this.#onError(error));
  }

  async #deliver(occurrence: AlertOccurrence, send: boolean): Promise<StoredAlert> {
    const alert = await this.store.alerts.record(this.namespace, occurrence);
    if (!send) return alert;
    this.log.write('Alert', occurrence.text, { configName: occurrence.source });
    const production = this.running();
    if (production?.hosts.has(alertItemName) && occurrence.source !== alertItemName) {
      await production.sendAlert(occurrence.source, alertRequest(occurrence)).catch((error: unknown) =>
        this.log.write('Error', `The alert from ${occurrence.source} could not be sent to ${alertItemName}: ${errorText(error)}`, {
          configName: alertItemName,
        }),
      );
    }
    return alert;
  }

  /** Queue thresholds and inactivity of the running items; one check at a time, skipped when none is set. */
  async check(): Promise<void> {
    const production = this.running();
    if (production === null) {
      this.#watchedSince.clear();
      this.#conditions.clear();
      return;
    }
    if (this.#checking) return;
    this.#checking = true;
    try {
      const now = this.#now();
      const watched = [...production.hosts.values()].filter((host) => host.state === 'running' || host.state === 'error');
      for (const name of this.#watchedSince.keys())
        if (!production.hosts.get(name) || production.hosts.get(name)?.state !== 'running') this.#watchedSince.delete(name);
      const settings = watched.map((host) => ({ host, settings: alertSettingsOf(host.item) }));
      let depths: Map<string, QueueDepth> | null = null;
      for (const { host, settings: wanted } of settings) {
        const name = host.item.name;
        if (host.state === 'running' && !this.#watchedSince.has(name)) this.#watchedSince.set(name, now);
        if (wanted.queueCountAlert > 0) {
          // The operator's figures, as GET /monitor and the health reason give them: a request a job holds is not waiting.
          depths ??= new Map((await operatorQueueDepths(this.store, this.namespace, production.hosts)).map((depth) => [depth.target, depth]));
          const queued = depths.get(name)?.queued ?? 0;
          this.#condition('queue', name, queued > wanted.queueCountAlert, now, () => {
            return `Queue of ${name} has ${queued} messages, past its QueueCountAlert of ${wanted.queueCountAlert}`;
          });
        }
        if (wanted.inactivityTimeoutMs > 0 && host.state === 'running') {
          const last = Math.max(this.statistics.find(name)?.lastActivity ?? 0, this.#watchedSince.get(name) ?? now);
          const idleMs = now - last;
          this.#condition('inactivity', name, idleMs > wanted.inactivityTimeoutMs, now, () => {
            return `Item ${name} has been inactive for ${Math.round(idleMs / 1000)} s, past its InactivityTimeout of ${wanted.inactivityTimeoutMs / 1000} s`;
          });
        }
      }
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#checking = false;
    }
  }

  /** Stops the periodic check (server shutdown). */
  close(): void {
    clearInterval(this.#timer);
    for (const timer of this.#graced.values()) clearTimeout(timer);
    this.#graced.clear();
  }

  #condition(category: AlertCategory, item: string, holds: boolean, now: number, text: () => string): void {
    const key = conditionKey(category, item);
    if (!holds) {
      this.#conditions.delete(key);
      return;
    }
    if (this.#conditions.has(key)) return;
    this.#conditions.add(key);
    this.raise({ source: item, category, key: category, text: text(), time: now });
  }

  #raiseAfterGrace(item: string, occurrence: AlertOccurrence, graceMs: number): void {
    if (this.#graced.has(item)) return; // one alert waits already; it carries the same news
    const timer = setTimeout(
      () => {
        this.#graced.delete(item);
        this.raise({ ...occurrence, time: this.#now() });
      },
      Math.min(graceMs, 2_147_483_647),
    );
    timer.unref();
    this.#graced.set(item, timer);
  }

  #cancelGraced(item: string): void {
    const timer = this.#graced.get(item);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#graced.delete(item);
  }

  #settingsOf(item: string): AlertSettings | null {
    const host = this.running()?.hosts.get(item);
    return host ? alertSettingsOf(host.item) : null;
  }

  /** The repeat window follows the running production's AlertActionWindow (seconds; IoP's alert_action_window). */
  #adoptWindow(): void {
    const setting = this.running()?.definition.settings?.find((entry) => entry.name === 'AlertActionWindow')?.value;
    const seconds = setting === undefined ? defaultActionWindowSeconds : Number(setting);
    const windowMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : defaultActionWindowSeconds * 1000;
    if (windowMs === this.#gateWindowMs) return;
    this.#gateWindowMs = windowMs;
    this.#gate = new RepeatGate(windowMs);
  }
}

function conditionKey(category: AlertCategory, item: string): string {
  return `${category}\u0000${item}`;
}

/** IRIS's Ens.AlertRequest: SourceConfigName, AlertText, AlertTime (ODBC timestamp, UTC). */
export function alertRequest(occurrence: AlertOccurrence): MessageBody {
  const alertTime = new Date(occurrence.time).toISOString().replace('T', ' ').replace('Z', '');
  return {
    classname: 'Ens.AlertRequest',
    encoding: 'native',
    data: JSON.stringify({ SourceConfigName: occurrence.source, AlertText: occurrence.text, AlertTime: alertTime }),
  };
}
