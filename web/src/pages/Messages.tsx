/**
 * Message search by header fields and body content (`GET /messages/search`): time range, source,
 * target, class, status (suspended included), session, error text, body text and a JSON body condition
 * (`$.patient.id = 42`, `$.name contains "urgent"`), paged by the server's opaque cursor; the list shows
 * each message's class and the start of its body; the result exports as CSV or NDJSON. Ticked rows, and
 * the detail of one message, get the message actions (abort, discard, resend, edit and resend).
 */
import { useState, type FormEvent } from 'react';
import { messageSearchRoutes, portalRoutes, type QueryOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, StatusBadge, formatTime, prettyJson, useAction, useLoad } from '../components/common.tsx';
import { MessageActions } from '../components/MessageActions.tsx';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';

const fields = [
  { name: 'from', label: 'From (UTC)', placeholder: 'YYYY-MM-DD HH:MM:SS' },
  { name: 'to', label: 'To (UTC)', placeholder: 'YYYY-MM-DD HH:MM:SS' },
  { name: 'source', label: 'Source', placeholder: 'item' },
  { name: 'target', label: 'Target', placeholder: 'item' },
  { name: 'classname', label: 'Class', placeholder: 'module.Class' },
  { name: 'session', label: 'Session', placeholder: 'id' },
  { name: 'error', label: 'Error contains', placeholder: 'text' },
  { name: 'text', label: 'Body contains', placeholder: 'text' },
] as const;
const statuses = ['queued', 'delivered', 'completed', 'error', 'suspended', 'discarded'] as const;
const pageLength = 50;
const previewLength = 120;

type SearchQuery = QueryOf<typeof messageSearchRoutes.searchMessageContent>;
type Filters = Record<string, string>;

/** The form's texts as the search route declares them: a session id as a number, a status from the list. */
function searchQuery(filters: Filters): Omit<SearchQuery, 'cursor' | 'limit' | 'preview'> {
  const { from, to, source, target, classname, session, error, text, status, body } = filters;
  const chosen = statuses.find((candidate) => candidate === status);
  const texts = Object.entries({ from, to, source, target, classname, error, text, body }).filter(([, value]) => value);
  return { ...Object.fromEntries(texts), ...(session ? { session: Number(session) } : {}), ...(chosen ? { status: chosen } : {}) };
}

/** Downloads an export through the signed-in client (the credentials ride in a header, so a plain link cannot). */
async function download(api: ReturnType<typeof useSession>['api'], format: 'csv' | 'ndjson', filters: Filters): Promise<void> {
  const query = new URLSearchParams({ namespace: api.namespace });
  for (const [name, value] of Object.entries(searchQuery(filters))) query.set(name, String(value));
  const response = await api.transport.request({ method: 'GET', path: `/api/iop/messages/export/${format}?${query}`, timeoutMs: 600_000 });
  if (response.status !== 200) {
    let text = response.text;
    try {
      text = (JSON.parse(response.text) as { error?: string }).error ?? text;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new Error(text || `Export failed (HTTP ${response.status})`);
  }
  const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
  const url = URL.createObjectURL(new Blob([response.text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = /filename="([^"]+)"/.exec(response.headers['content-disposition'] ?? '')?.[1] ?? `messages.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Messages({ query }: { query: URLSearchParams }) {
  const { api, can } = useSession();
  const initial = Object.fromEntries([...fields.map((f) => f.name), 'status', 'body'].map((name) => [name, query.get(name) ?? '']));
  const [form, setForm] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(initial);
  // Cursor paging: the cursor of each page seen, so "Newer" can go back.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  // The rows ticked for the message actions; a new search or page starts with none.
  const [selected, setSelected] = useState<number[]>([]);
  const turnPage = (next: Array<string | undefined>) => (setSelected([]), setCursors(next));
  const toggle = (id: number) => setSelected((old) => (old.includes(id) ? old.filter((other) => other !== id) : [...old, id]));
  const page = useLoad(
    () =>
      api.call(messageSearchRoutes.searchMessageContent, {
        query: { ...searchQuery(filters), ...(cursor ? { cursor } : {}), limit: pageLength, preview: previewLength },
      }),
    [api, filters, cursor],
  );
  const exporting = useAction();
  const found = page.data?.messages ?? [];
  const next = page.data?.next_cursor ?? null;

  function search(event: FormEvent) {
    event.preventDefault();
    turnPage([undefined]);
    setFilters({ ...form });
  }

  return (
    <Panel
      title="Messages"
      actions={
        <>
          <button type="button" disabled={exporting.busy} onClick={() => void exporting.run(() => download(api, 'csv', filters))}>
            Export CSV
          </button>
          <button type="button" disabled={exporting.busy} onClick={() => void exporting.run(() => download(api, 'ndjson', filters))}>
            Export NDJSON
          </button>
        </>
      }
    >
      <form className="filters message-search" onSubmit={search} role="search" aria-label="Message search">
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
        <label className="body-condition">
          Body condition
          <input
            name="body"
            value={form.body ?? ''}
            placeholder='$.patient.id = 42 and $.name contains "urgent"'
            title='A JSON path = a JSON value, or a JSON path contains "text"; several joined by "and"'
            onChange={(e) => setForm({ ...form, body: e.target.value })}
          />
        </label>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorNote error={page.error} />
      <ErrorNote error={exporting.error} />
      {page.data && page.data.scanned > 0 ? (
        <p className="muted scan-note" role="status">
          Examined {page.data.scanned.toLocaleString('en')} messages for this page and stopped there
          {found.length > 0 ? ` with ${found.length} found` : ' without a match'}; “Older →” searches further back.
        </p>
      ) : null}
      {can('operator') && selected.length > 0 ? <MessageActions key={selected.join(',')} ids={selected} onDone={page.reload} /> : null}
      <table className="grid messages" aria-label="Messages found">
        <thead>
          <tr>
            <th>Id</th>
            <th>Created (UTC)</th>
            <th>Session</th>
            <th>Kind</th>
            <th>Source</th>
            <th>Target</th>
            <th>Class</th>
            <th>Status</th>
            <th>Error</th>
            <th>Body</th>
          </tr>
        </thead>
        <tbody>
          {page.data && found.length === 0 ? (
            <tr>
              <td colSpan={10} className="muted">
                {next ? 'No match in the messages examined so far.' : 'No message matches.'}
              </td>
            </tr>
          ) : null}
          {found.map((message) => (
            <tr key={message.id} className="clickable" onClick={() => navigate(href('messages', message.id))}>
              <td className="nowrap">
                {can('operator') ? (
                  <input
                    type="checkbox"
                    aria-label={`Select message ${message.id}`}
                    checked={selected.includes(message.id)}
                    onClick={(e) => e.stopPropagation()}
                    onChange={() => toggle(message.id)}
                  />
                ) : null}{' '}
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
              <td className="classname">{message.classname}</td>
              <td>
                <StatusBadge status={message.status} />
              </td>
              <td className="error-text">{message.error ?? ''}</td>
              <td className="body-preview" title={message.preview}>
                {message.encoding === 'pickle' ? <span className="muted">(pickled)</span> : message.preview || <span className="muted">(empty)</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => turnPage(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!next} onClick={() => next && turnPage([...cursors, next])}>
          Older →
        </button>
      </div>
    </Panel>
  );
}

export function MessageDetail({ id }: { id: number }) {
  const { api } = useSession();
  const message = useLoad(() => api.call(portalRoutes.getMessage, { params: { id } }), [api, id]);
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
            <MessageActions ids={[id]} onDone={message.reload} />
          </div>
        </div>
      ) : null}
    </Panel>
  );
}
