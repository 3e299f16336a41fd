/** Productions of the namespace: status and times, lifecycle buttons, the default production. */
import { specRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, StatusBadge, useAction, useLoad } from '../components/common.tsx';
import { FailedItems } from '../components/FailedItems.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

interface Overview {
  list: ReplyOf<typeof specRoutes.list>;
  current: ReplyOf<typeof specRoutes.status>;
  defaultProduction: string;
}

export function Productions() {
  const { api, can } = useSession();
  const overview = useLoad<Overview>(
    async () => {
      const [list, current, def] = await Promise.all([api.call(specRoutes.list), api.call(specRoutes.status), api.call(specRoutes.getDefault)]);
      return { list, current, defaultProduction: def.production };
    },
    [api],
    3000,
  );
  const action = useAction();
  const act = (run: () => Promise<unknown>) => action.run(run).then(overview.reload);
  const data = overview.data;
  const running = data?.current.status === 'running' ? data.current.production : '';

  return (
    <Panel
      title="Productions"
      actions={
        can('operator') && running ? (
          <>
            <button type="button" disabled={action.busy} onClick={() => void act(() => api.call(specRoutes.stop, { body: {} }))}>
              Stop
            </button>
            <button type="button" disabled={action.busy} onClick={() => void act(() => api.call(specRoutes.restart, { body: {} }))}>
              Restart
            </button>
            <button type="button" disabled={action.busy} onClick={() => void act(() => api.call(specRoutes.update, { body: {} }))}>
              Update
            </button>
            <button
              type="button"
              className="danger"
              disabled={action.busy}
              onClick={() => window.confirm(`Kill ${running}? In-flight messages stay queued.`) && void act(() => api.call(specRoutes.kill, { body: {} }))}
            >
              Kill
            </button>
          </>
        ) : null
      }
    >
      <ErrorNote error={overview.error || action.error} />
      {running ? <FailedItems production={running} /> : null}
      {action.busy ? <p className="muted">Working…</p> : null}
      <table className="grid" aria-label="Productions">
        <thead>
          <tr>
            <th>Production</th>
            <th>Status</th>
            <th>Last start</th>
            <th>Last stop</th>
            <th>Auto start</th>
            <th>Default</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {data && Object.keys(data.list).length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No production in this namespace yet: migrate a package with <code>cli -m settings.py</code>.
              </td>
            </tr>
          ) : null}
          {Object.entries(data?.list ?? {}).map(([name, record]) => (
            <tr key={name} data-production={name}>
              <td>
                <a href={href('production', name)}>{name}</a>
              </td>
              <td>
                <StatusBadge status={record.Status} />
              </td>
              <td>{record.LastStartTime}</td>
              <td>{record.LastStopTime}</td>
              <td>{record.AutoStart ? 'yes' : 'no'}</td>
              <td>
                {data?.defaultProduction === name ? (
                  <strong>default</strong>
                ) : can('admin') ? (
                  <button type="button" className="link" onClick={() => void act(() => api.call(specRoutes.setDefault, { body: { production: name } }))}>
                    Make default
                  </button>
                ) : null}
              </td>
              <td className="row-actions">
                {can('operator') && !running ? (
                  <button
                    type="button"
                    className="primary"
                    disabled={action.busy}
                    onClick={() => void act(() => api.call(specRoutes.start, { body: { production: name } }))}
                  >
                    Start
                  </button>
                ) : null}
                <a href={href('production', name)}>Configure</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
