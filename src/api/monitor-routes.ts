/** `GET /monitor`, `GET /alerts`, `POST /alerts/acknowledge` (src/core/contract/monitor-routes.ts). */
import type { FastifyInstance } from 'fastify';
import * as contract from '../core/contract/monitor-routes.ts';
import type { MonitorItem, MonitorReport } from '../engine/monitor/monitor-report.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import type { StoredAlert } from '../store/alerts.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

const iso = (time: number | null): string | null => (time === null ? null : new Date(time).toISOString());

function itemJson(item: MonitorItem) {
  return {
    name: item.name,
    classname: item.classname,
    kind: item.kind,
    enabled: item.enabled,
    status: item.status,
    error: item.error,
    jobs: item.jobs,
    messages_in: item.messagesIn,
    messages_out: item.messagesOut,
    processed: item.processed,
    messages_in_error: item.failed,
    queued: item.queued,
    in_progress: item.inProgress,
    last_activity: iso(item.lastActivity),
    mean_ms: item.meanMs,
    p95_ms: item.p95Ms,
    rate_1m: item.rate1m,
    rate_5m: item.rate5m,
    queue_count_alert: item.queueCountAlert,
    inactivity_timeout: item.inactivityTimeout,
    trouble: item.trouble,
  };
}

export function monitorJson(report: MonitorReport) {
  return {
    namespace: report.namespace,
    node: report.node,
    production: report.production,
    status: report.status,
    health: report.health,
    reason: report.reason,
    open_alerts: report.openAlerts,
    time: new Date(report.time).toISOString(),
    items: report.items.map(itemJson),
  };
}

function alertJson(alert: StoredAlert) {
  return {
    id: alert.id,
    source: alert.source,
    category: alert.category,
    text: alert.text,
    first_time: new Date(alert.firstTime).toISOString(),
    last_time: new Date(alert.lastTime).toISOString(),
    count: alert.count,
    acknowledged: alert.acknowledged,
    acknowledged_by: alert.acknowledgedBy,
    acknowledged_at: iso(alert.acknowledgedAt),
  };
}

export function registerMonitorRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, contract.monitor, async (request) => monitorJson(await (await namespaceOf(request, engine)).monitor()));

  serve(scope, catalog, contract.alerts, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { state, limit } = request.query;
    const acknowledged = state === 'open' ? { acknowledged: false } : state === 'acknowledged' ? { acknowledged: true } : {};
    const found = await namespace.alerts.list({ ...acknowledged, limit: limit ?? 100 });
    return { alerts: found.map(alertJson) };
  });

  serve(scope, catalog, contract.acknowledgeAlerts, async (request) => {
    const namespace = await namespaceOf(request, engine);
    return { acknowledged: await namespace.alerts.acknowledge(request.body.ids, request.user?.name ?? '') };
  });
}
