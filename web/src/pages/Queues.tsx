/**
 * Queues: per item, the requests waiting and in progress, the oldest one's age, whether an operator
 * suspended its queue (and who), its suspended messages; operators suspend and resume a queue here.
 * Below, the suspended messages (failed requests nobody waited for) with their actions.
 */
import { useState } from 'react';
import { controlRoutes } from '../../../src/client/routes.ts';
import { MessageActions } from '../components/MessageActions.tsx';
import { ErrorNote, Panel, StatusBadge, formatAge, formatTime, useAction, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

export function Queues() {
  const { api, can } = useSession();
  const queues = useLoad(() => api.call(controlRoutes.controlQueues), [api], 3000);
  const action = useAction();
  const now = Date.now();
  const toggle = (item: string, suspended: boolean) =>
    void action.run(async () => {
      await api.call(suspended ? controlRoutes.resumeQueue : controlRoutes.suspendQueue, { params: { item }, body: {} });
      queues.reload();
    });
  return (
    <>
      <Panel title={`Queues${queues.data ? ` of ${queues.data.production}` : ''}`}>
        <ErrorNote error={queues.error || action.error} />
        <table className="grid" aria-label="Queues">
          <thead>
            <tr>
              <th>Item</th>
              <th>Kind</th>
              <th>Waiting</th>
              <th>In progress</th>
              <th>Oldest</th>
              <th>State</th>
              <th>Queue</th>
              <th>Suspended messages</th>
              <th>Messages</th>
            </tr>
          </thead>
          <tbody>
            {queues.data?.items.map((item) => (
              <tr key={item.name} data-item={item.name} className={item.suspended ? 'queue-suspended' : undefined}>
                <td>{item.name}</td>
                <td>{item.kind}</td>
                <td className="queued">{item.waiting}</td>
                <td className="in-progress">{item.inProgress}</td>
                <td>{formatAge(item.oldest, now)}</td>
                <td>{item.state}</td>
                <td className="queue-state">
                  {item.suspended ? (
                    <span title={`since ${formatTime(item.suspendedAt, false)}`}>
                      <StatusBadge status="suspended" /> by {item.suspendedBy}
                    </span>
                  ) : (
                    'delivering'
                  )}
                  {can('operator') && item.kind !== 'service' ? (
                    <button
                      type="button"
                      className="queue-toggle"
                      aria-label={`${item.suspended ? 'Resume' : 'Suspend'} queue of ${item.name}`}
                      disabled={action.busy}
                      onClick={() => toggle(item.name, item.suspended)}
                    >
                      {item.suspended ? 'Resume' : 'Suspend'}
                    </button>
                  ) : null}
                </td>
                <td className="suspended-count">{item.suspendedMessages}</td>
                <td>
                  <a href={href('messages', { target: item.name, status: 'queued' })}>queued</a> · <a href={href('messages', { target: item.name })}>all</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          Refreshed every 3 seconds. A suspended queue keeps its requests queued (across restarts) until it is resumed; a request a job is handling finishes.
        </p>
      </Panel>
      <SuspendedMessages refreshKey={queues.data} />
    </>
  );
}

/** Failed requests nobody waited for: kept aside until an operator resends or discards them. */
function SuspendedMessages({ refreshKey }: { refreshKey: unknown }) {
  const { api } = useSession();
  const [selected, setSelected] = useState<number[]>([]);
  const list = useLoad(() => api.call(controlRoutes.suspendedMessages, { query: { limit: 100 } }), [api, refreshKey]);
  const messages = list.data?.messages ?? [];
  const toggle = (id: number) => setSelected((ids) => (ids.includes(id) ? ids.filter((other) => other !== id) : [...ids, id]));
  const shown = selected.filter((id) => messages.some((message) => message.id === id));
  return (
    <Panel title="Suspended messages">
      <ErrorNote error={list.error} />
      {messages.length === 0 ? (
        <p className="muted">No suspended message: every failed request had a caller that got its error.</p>
      ) : (
        <>
          <table className="grid" aria-label="Suspended messages">
            <thead>
              <tr>
                <th aria-label="Select" />
                <th>Id</th>
                <th>Time</th>
                <th>Source</th>
                <th>Target</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((message) => (
                <tr key={message.id} data-id={message.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select message ${message.id}`}
                      checked={shown.includes(message.id)}
                      onChange={() => toggle(message.id)}
                    />
                  </td>
                  <td>
                    <a href={href('messages', message.id)}>{message.id}</a>
                  </td>
                  <td>{formatTime(message.createdAt)}</td>
                  <td>{message.source}</td>
                  <td>{message.target}</td>
                  <td className="error-text">{message.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 ? <p className="muted">Select messages to resend or discard them.</p> : null}
        </>
      )}
      {/* Kept mounted while the list changes: the outcome of the last action stays in view. */}
      <MessageActions
        ids={shown}
        onDone={() => {
          setSelected([]);
          list.reload();
        }}
      />
    </Panel>
  );
}
