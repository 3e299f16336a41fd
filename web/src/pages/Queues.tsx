/** Queues: depth per item, messages in progress, the oldest waiting message's age, links to the messages. */
import { portalRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, formatAge, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

export function Queues() {
  const { api } = useSession();
  const items = useLoad(() => api.call(portalRoutes.items), [api], 3000);
  const now = Date.now();
  return (
    <Panel title={`Queues${items.data ? ` of ${items.data.production}` : ''}`}>
      <ErrorNote error={items.error} />
      <table className="grid" aria-label="Queues">
        <thead>
          <tr>
            <th>Item</th>
            <th>Kind</th>
            <th>Queued</th>
            <th>In progress</th>
            <th>Oldest waiting</th>
            <th>State</th>
            <th>Messages</th>
          </tr>
        </thead>
        <tbody>
          {items.data?.items.map((item) => (
            <tr key={item.name} data-item={item.name}>
              <td>{item.name}</td>
              <td>{item.kind}</td>
              <td className="queued">{item.queued}</td>
              <td>{item.delivered}</td>
              <td>{formatAge(item.oldest, now)}</td>
              <td>{item.error ? <span className="error-text">{item.error}</span> : item.enabled ? item.state : 'disabled'}</td>
              <td>
                <a href={href('messages', { target: item.name, status: 'queued' })}>queued</a> · <a href={href('messages', { target: item.name })}>all</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Refreshed every 3 seconds.</p>
    </Panel>
  );
}
