/**
 * The live monitor: the production's health with its reason, the diagram coloured by each item's
 * health, and per item its status and figures (messages in, out, in error, queued, in progress, last
 * activity, mean and p95 processing time, rates over 1 and 5 minutes). Polls GET /monitor every 2 s.
 */
import { useMemo, useState } from 'react';
import { monitorRoutes, portalRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ProductionDiagram, type ItemHealth } from '../components/ProductionDiagram.tsx';
import { ErrorNote, Panel, StatusBadge, formatAge, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

type MonitorItemJson = ReplyOf<typeof monitorRoutes.monitor>['items'][number];

const refreshMs = 2000;

/** An item's colour: down when in error, degraded when it has trouble, ok while it runs, none when stopped or disabled. */
function itemHealth(item: MonitorItemJson): ItemHealth | null {
  if (item.status === 'error') return 'down';
  if (item.trouble !== null || item.status === 'inactive') return 'degraded';
  return item.status === 'running' ? 'ok' : null;
}

const milliseconds = (value: number | null) => (value === null ? '' : value < 10 ? value.toFixed(2) : value.toFixed(0));
const perSecond = (value: number) => (value === 0 ? '0' : value < 0.1 ? value.toFixed(3) : value.toFixed(1));

export function Monitor() {
  const { api } = useSession();
  const report = useLoad(() => api.call(monitorRoutes.monitor), [api], refreshMs);
  const production = report.data?.production ?? '';
  const items = useLoad(
    () => (production ? api.call(portalRoutes.items, { query: { production } }) : Promise.resolve(undefined)),
    [api, production],
    refreshMs,
  );
  const [selected, setSelected] = useState('');
  const health = useMemo(() => {
    const map = new Map<string, ItemHealth>();
    for (const item of report.data?.items ?? []) {
      const state = itemHealth(item);
      if (state) map.set(item.name, state);
    }
    return map;
  }, [report.data]);
  const data = report.data;
  const now = Date.now();
  return (
    <>
      <Panel
        title={`Monitor${production ? ` of ${production}` : ''}`}
        actions={
          data ? (
            <a href={href('alerts')} className="open-alerts">
              {data.open_alerts} open alert{data.open_alerts === 1 ? '' : 's'}
            </a>
          ) : null
        }
      >
        <ErrorNote error={report.error} />
        {data ? (
          <div className={`health-banner health-${data.health}`} role="status" aria-label="Production health">
            <strong className="health-word">{data.health}</strong>
            <span className="health-reason">{data.reason}</span>
            <span className="muted health-node">
              node {data.node} · {data.status}
            </span>
          </div>
        ) : null}
        {items.data && items.data.items.length > 0 ? (
          <ProductionDiagram items={items.data.items} selected={selected} onSelect={setSelected} health={health} />
        ) : null}
      </Panel>
      <Panel title="Items">
        <table className="grid monitor-grid" aria-label="Monitor">
          <thead>
            <tr>
              <th>Item</th>
              <th>Status</th>
              <th title="Requests sent to the item (a service: inputs handled)">In</th>
              <th title="Requests the item sent">Out</th>
              <th>In error</th>
              <th>Queued</th>
              <th>In progress</th>
              <th>Last activity</th>
              <th title="Processing time, mean (ms)">Mean ms</th>
              <th title="Processing time, 95th percentile (ms)">p95 ms</th>
              <th title="Handled per second, last minute">/s 1 min</th>
              <th title="Handled per second, last 5 minutes">/s 5 min</th>
            </tr>
          </thead>
          <tbody>
            {data?.items.map((item) => (
              <tr
                key={item.name}
                data-item={item.name}
                className={`${selected === item.name ? 'selected ' : ''}row-health-${itemHealth(item) ?? 'none'}`}
                onClick={() => setSelected(item.name)}
              >
                <td>
                  {item.name}
                  {item.trouble ? <div className="trouble">{item.trouble}</div> : null}
                </td>
                <td className="status">
                  <StatusBadge status={item.status} />
                </td>
                <td className="messages-in">{item.messages_in}</td>
                <td className="messages-out">{item.messages_out}</td>
                <td className="messages-in-error">{item.messages_in_error}</td>
                <td className="queued">{item.queued}</td>
                <td className="in-progress">{item.in_progress}</td>
                <td title={item.last_activity ?? ''}>{item.last_activity ? `${formatAge(Date.parse(item.last_activity), now)} ago` : ''}</td>
                <td>{milliseconds(item.mean_ms)}</td>
                <td>{milliseconds(item.p95_ms)}</td>
                <td>{perSecond(item.rate_1m)}</td>
                <td>{perSecond(item.rate_5m)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          Live: refreshed every {refreshMs / 1000} seconds. Figures are this node&apos;s since the server started (in a cluster, each node counts what it
          handled); queues come from the store.
        </p>
      </Panel>
    </>
  );
}
