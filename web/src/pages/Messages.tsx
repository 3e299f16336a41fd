/**
 * Message search (time, source, target, class, status, session, body text), paged by id (keyset:
 * `before` = last id of the page), and the detail of one message with resend.
 */
import { useState, type FormEvent } from 'react';
import { portalRoutes, type QueryOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, StatusBadge, formatTime, prettyJson, useAction, useLoad } from '../components/common.tsx';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';

const fields = [
  { name: 'from', label: 'From (UTC)', placeholder: 'YYYY-MM-DD HH:MM:SS' },
  { name: 'to', label: 'To (UTC)', placeholder: 'YYYY-MM-DD HH:MM:SS' },
  { name: 'source', label: 'Source', placeholder: 'item' },
  { name: 'target', label: 'Target', placeholder: 'item' },
  { name: 'classname', label: 'Class', placeholder: 'module.Class' },
  { name: 'session', label: 'Session', placeholder: 'id' },
  { name: 'text', label: 'Body contains', placeholder: 'text' },
] as const;
const statuses = ['queued', 'delivered', 'completed', 'error', 'discarded'] as const;
type MessageQuery = QueryOf<typeof portalRoutes.searchMessages>;

/** The form's texts as the search route declares them: a session id as a number, a status from the list. */
function messageQuery(filters: Record<string, string>): MessageQuery {
  const { from, to, source, target, classname, session, text, status } = filters;
  const chosen = statuses.find((candidate) => candidate === status);
  return { from, to, source, target, classname, text, ...(session ? { session: Number(session) } : {}), ...(chosen ? { status: chosen } : {}) };
}
const pageLength = 50;

export function Messages({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const initial = Object.fromEntries([...fields.map((f) => f.name), 'status'].map((name) => [name, query.get(name) ?? '']));
  const [form, setForm] = useState<Record<string, string>>(initial);
  const [filters, setFilters] = useState<Record<string, string>>(initial);
  // Keyset paging: the `before` of each page seen, so "Newer" can go back.
  const [cursors, setCursors] = useState<Array<number | undefined>>([undefined]);
  const before = cursors[cursors.length - 1];
  const page = useLoad(() => api.call(portalRoutes.searchMessages, { query: { ...messageQuery(filters), before, limit: pageLength } }), [api, filters, before]);

  function search(event: FormEvent) {
    event.preventDefault();
    setCursors([undefined]);
    setFilters({ ...form });
  }

  return (
    <Panel title="Messages">
      <form className="filters" onSubmit={search} role="search" aria-label="Message search">
        {fields.map((field) => (
          <label key={field.name}>
            {field.label}
            <input
              name={field.name}
              value={form[field.name] ?? ''}
              placeholder={field.placeholder}
              onChange={(e) => setForm({ ...form, [field.name]: e.target.value })}
            />
          </label>
        ))}
        <label>
          Status
          <select name="status" value={form.status ?? ''} onChange={(e) => setForm({ ...form, status: e.target.value })}>
            <option value="">Any</option>
            {statuses.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorNote error={page.error} />
      <table className="grid" aria-label="Messages found">
        <thead>
          <tr>
            <th>Id</th>
            <th>Created (UTC)</th>
            <th>Session</th>
            <th>Kind</th>
            <th>Source</th>
            <th>Target</th>
            <th>Status</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {page.data?.messages.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                No message matches.
              </td>
            </tr>
          ) : null}
          {page.data?.messages.map((message) => (
            <tr key={message.id} className="clickable" onClick={() => navigate(href('messages', message.id))}>
              <td>
                <a href={href('messages', message.id)}>{message.id}</a>
              </td>
              <td className="nowrap">{formatTime(message.createdAt)}</td>
              <td>
                <a href={href('trace', message.sessionId)} onClick={(e) => e.stopPropagation()}>
                  {message.sessionId}
                </a>
              </td>
              <td>{message.kind}</td>
              <td>{message.source}</td>
              <td>{message.target}</td>
              <td>
                <StatusBadge status={message.status} />
              </td>
              <td className="error-text">{message.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!page.data?.next_before} onClick={() => page.data?.next_before && setCursors([...cursors, page.data.next_before])}>
          Older →
        </button>
      </div>
    </Panel>
  );
}

export function MessageDetail({ id }: { id: number }) {
  const { api, can } = useSession();
  const message = useLoad(() => api.call(portalRoutes.getMessage, { params: { id } }), [api, id]);
  const resend = useAction();
  const [target, setTarget] = useState('');
  const [resent, setResent] = useState<{ id: number; session_id: number } | null>(null);
  const m = message.data;
  return (
    <Panel title={`Message ${id}`} actions={m ? <a href={href('trace', m.sessionId)}>Trace of session {m.sessionId}</a> : null}>
      <ErrorNote error={message.error} />
      {m ? (
        <div className="two-columns">
          <dl className="header-fields" aria-label="Header">
            {(
              [
                ['Session', <a href={href('trace', m.sessionId)}>{m.sessionId}</a>],
                ['Kind', m.kind],
                ['Source', m.source],
                ['Target', m.target],
                ['Status', <StatusBadge status={m.status} />],
                ['Class', m.body.classname],
                ['Encoding', m.body.encoding],
                ['Created', formatTime(m.createdAt)],
                ['Updated', formatTime(m.updatedAt)],
                ['Parent', m.parentId ? <a href={href('messages', m.parentId)}>{m.parentId}</a> : ''],
                ['Corresponding', m.correspondingId ? <a href={href('messages', m.correspondingId)}>{m.correspondingId}</a> : ''],
                ['Attempts', m.attempts],
                ['Priority', m.priority],
                ['Error', <span className="error-text">{m.error ?? ''}</span>],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <div>
            <h3>Body</h3>
            <pre className="code" aria-label="Body">
              {prettyJson(m.body.data) || '(empty)'}
            </pre>
            {can('operator') && m.kind === 'request' ? (
              <form
                className="inline-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  void resend.run(async () => setResent(await api.call(portalRoutes.resendMessage, { params: { id }, body: target ? { target } : {} })));
                }}
              >
                <label>
                  Resend to
                  <input value={target} placeholder={m.target} onChange={(e) => setTarget(e.target.value)} aria-label="Resend target" />
                </label>
                <button type="submit" disabled={resend.busy}>
                  Resend
                </button>
                {resent ? (
                  <span className="ok-note">
                    Sent as message <a href={href('messages', resent.id)}>{resent.id}</a>, session{' '}
                    <a href={href('trace', resent.session_id)}>{resent.session_id}</a>
                  </span>
                ) : null}
                <ErrorNote error={resend.error} />
              </form>
            ) : null}
          </div>
        </div>
      ) : null}
    </Panel>
  );
}
