/**
 * Alerts of the namespace: what raised them, how many times, first and last time; operators
 * acknowledge them (one, or the selected ones). Polls GET /alerts every 3 s.
 */
import { useState } from 'react';
import { monitorRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, useAction, useLoad } from '../components/common.tsx';
import { useSession } from '../session.tsx';

type AlertState = 'open' | 'acknowledged' | 'all';

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, '') : '');

export function Alerts() {
  const { api, can } = useSession();
  const [state, setState] = useState<AlertState>('open');
  const [selected, setSelected] = useState<number[]>([]);
  const alerts = useLoad(() => api.call(monitorRoutes.alerts, { query: { state, limit: 200 } }), [api, state], 3000);
  const action = useAction();
  const acknowledge = (ids: number[]) =>
    void action.run(async () => {
      await api.call(monitorRoutes.acknowledgeAlerts, { body: { ids } });
      setSelected([]);
      alerts.reload();
    });
  const rows = alerts.data?.alerts ?? [];
  const openIds = rows.filter((alert) => !alert.acknowledged).map((alert) => alert.id);
  const toggle = (id: number) => setSelected((current) => (current.includes(id) ? current.filter((other) => other !== id) : [...current, id]));
  return (
    <Panel
      title="Alerts"
      actions={
        <>
          <label>
            Show{' '}
            <select value={state} onChange={(e) => (setState(e.target.value as AlertState), setSelected([]))} aria-label="Alerts to show">
              <option value="open">open</option>
              <option value="acknowledged">acknowledged</option>
              <option value="all">all</option>
            </select>
          </label>
          {can('operator') ? (
            <button type="button" disabled={action.busy || selected.length === 0} onClick={() => acknowledge(selected)}>
              Acknowledge selected ({selected.length})
            </button>
          ) : null}
        </>
      }
    >
      <ErrorNote error={alerts.error || action.error} />
      <table className="grid alerts-grid" aria-label="Alerts">
        <thead>
          <tr>
            {can('operator') ? (
              <th>
                <input
                  type="checkbox"
                  aria-label="Select every open alert"
                  checked={openIds.length > 0 && openIds.every((id) => selected.includes(id))}
                  onChange={(e) => setSelected(e.target.checked ? openIds : [])}
                />
              </th>
            ) : null}
            <th>Item</th>
            <th>Kind</th>
            <th>Alert</th>
            <th>Count</th>
            <th>First</th>
            <th>Last</th>
            <th>Acknowledged</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((alert) => (
            <tr key={alert.id} data-alert={alert.id} className={alert.acknowledged ? 'alert-acknowledged' : 'alert-open'}>
              {can('operator') ? (
                <td>
                  {alert.acknowledged ? null : (
                    <input type="checkbox" aria-label={`Select alert ${alert.id}`} checked={selected.includes(alert.id)} onChange={() => toggle(alert.id)} />
                  )}
                </td>
              ) : null}
              <td>{alert.source}</td>
              <td>{alert.category}</td>
              <td className="alert-text">{alert.text}</td>
              <td className="alert-count">{alert.count}</td>
              <td>{when(alert.first_time)}</td>
              <td>{when(alert.last_time)}</td>
              <td className="alert-ack">
                {alert.acknowledged ? (
                  `by ${alert.acknowledged_by ?? ''} at ${when(alert.acknowledged_at)}`
                ) : can('operator') ? (
                  <button type="button" disabled={action.busy} aria-label={`Acknowledge alert ${alert.id}`} onClick={() => acknowledge([alert.id])}>
                    Acknowledge
                  </button>
                ) : (
                  'open'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && alerts.data ? <p className="muted">No {state === 'all' ? '' : `${state} `}alerts.</p> : null}
      <p className="muted">
        An alert counts its repeats until it is acknowledged; a repeat within the production&apos;s AlertActionWindow is not sent again to Ens.Alert.
      </p>
    </Panel>
  );
}
