/**
 * `GET /monitor`'s answer, built from what the namespace knows at the moment: the items (running
 * hosts or the stored definition), the queue depths from the store, this node's in-memory figures
 * and the open alerts; and the production's health with its reason.
 *
 * Health: `down` when the production does not run (or every enabled item is in error); `degraded`
 * when an enabled item is in error, inactive past its InactivityTimeout, has its queue past its
 * QueueCountAlert, or failed a message in the last minute; `ok` otherwise.
 */
import type { ReportedStatus } from '../../core/production.ts';
import type { QueueDepth } from '../../store/store.ts';
import type { AlertSettings } from './alert-settings.ts';
import type { ItemFigures, NamespaceStatistics } from './item-statistics.ts';

export type Health = 'ok' | 'degraded' | 'down';

/** running | stopped | error | disabled, or inactive (running, silent past its InactivityTimeout). */
export type MonitorItemStatus = 'running' | 'stopped' | 'error' | 'disabled' | 'inactive';

export interface MonitorItem extends ItemFigures {
  name: string;
  classname: string;
  kind: string;
  enabled: boolean;
  status: MonitorItemStatus;
  error: string | null;
  jobs: number;
  /** Waiting in the item's queue (from the store). */
  queued: number;
  /** Taken by a job, not finished (from the store). */
  inProgress: number;
  /** The item's QueueCountAlert and InactivityTimeout (seconds); 0 = none. */
  queueCountAlert: number;
  inactivityTimeout: number;
  /** Why this item degrades the production, or null. */
  trouble: string | null;
}

export interface MonitorReport {
  namespace: string;
  /** The node whose figures these are (in a cluster each node counts what it handled). */
  node: string;
  production: string;
  status: ReportedStatus;
  health: Health;
  reason: string;
  /** Alerts not yet acknowledged. */
  openAlerts: number;
  /** Epoch ms of the report. */
  time: number;
  items: MonitorItem[];
}

/** One item as the namespace sees it now. */
export interface ItemView {
  name: string;
  classname: string;
  kind: string;
  enabled: boolean;
  /** running | stopped | error | disabled */
  state: string;
  error: string | null;
  jobs: number;
  alertSettings: AlertSettings;
  inactive: boolean;
}

export interface ReportInput {
  namespace: string;
  node: string;
  production: string;
  status: ReportedStatus;
  items: ItemView[];
  depths: QueueDepth[];
  statistics: NamespaceStatistics;
  openAlerts: number;
  now: number;
}

const emptyFigures: ItemFigures = {
  messagesIn: 0,
  messagesOut: 0,
  processed: 0,
  failed: 0,
  lastActivity: null,
  meanMs: null,
  p95Ms: null,
  rate1m: 0,
  rate5m: 0,
};

export function buildMonitorReport(input: ReportInput): MonitorReport {
  const running = input.status === 'running';
  const depthOf = new Map(input.depths.map((depth) => [depth.target, depth]));
  const items = input.items.map((view): MonitorItem => {
    const statistics = input.statistics.find(view.name);
    const figures = statistics?.figures(input.now) ?? emptyFigures;
    const depth = depthOf.get(view.name);
    const queued = depth?.queued ?? 0;
    const status = statusOf(view, running);
    const settings = view.alertSettings;
    const item: MonitorItem = {
      name: view.name,
      classname: view.classname,
      kind: view.kind,
      enabled: view.enabled,
      status,
      error: view.error,
      jobs: view.jobs,
      ...figures,
      // A service takes inputs, not requests: its "in" is the inputs it handled.
      messagesIn: view.kind === 'service' ? figures.processed + figures.failed : figures.messagesIn,
      queued,
      inProgress: depth?.delivered ?? 0,
      queueCountAlert: settings.queueCountAlert,
      inactivityTimeout: settings.inactivityTimeoutMs / 1000,
      trouble: null,
    };
    item.trouble = running ? troubleOf(item, statistics?.recentFailures(input.now, 60) ?? 0) : null;
    return item;
  });
  const { health, reason } = healthOf(input, items);
  return {
    namespace: input.namespace,
    node: input.node,
    production: input.production,
    status: input.status,
    health,
    reason,
    openAlerts: input.openAlerts,
    time: input.now,
    items,
  };
}

function statusOf(view: ItemView, running: boolean): MonitorItemStatus {
  if (!view.enabled) return 'disabled';
  if (!running) return 'stopped';
  if (view.state === 'error') return 'error';
  if (view.state === 'running') return view.inactive ? 'inactive' : 'running';
  return view.state === 'disabled' ? 'disabled' : 'stopped';
}

function troubleOf(item: MonitorItem, recentFailures: number): string | null {
  if (!item.enabled) return null;
  if (item.status === 'error') return `${item.name} is in error${item.error ? `: ${item.error}` : ''}`;
  if (item.status === 'inactive') return `${item.name} is inactive (no activity for ${item.inactivityTimeout} s)`;
  if (item.queueCountAlert > 0 && item.queued > item.queueCountAlert) {
    return `${item.name} has ${item.queued} queued messages (QueueCountAlert ${item.queueCountAlert})`;
  }
  if (recentFailures > 0) return `${item.name} failed ${recentFailures} message${recentFailures === 1 ? '' : 's'} in the last minute`;
  return null;
}

function healthOf(input: ReportInput, items: MonitorItem[]): { health: Health; reason: string } {
  if (input.production === '') return { health: 'down', reason: `No production in namespace ${input.namespace}` };
  if (input.status !== 'running') return { health: 'down', reason: `Production ${input.production} is ${input.status}` };
  const enabled = items.filter((item) => item.enabled);
  if (enabled.length > 0 && enabled.every((item) => item.status === 'error')) {
    return { health: 'down', reason: `Every item of production ${input.production} is in error` };
  }
  const troubles = items.map((item) => item.trouble).filter((trouble): trouble is string => trouble !== null);
  if (troubles.length > 0) return { health: 'degraded', reason: troubles.join('; ') };
  return { health: 'ok', reason: `Production ${input.production} is running; every enabled item is well` };
}
