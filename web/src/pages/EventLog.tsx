/**
 * The event log, filtered on the server (`GET /log/search`: type, item, text), so a filter finds every
 * matching entry of the store and not only those already loaded. Pages go back with `before` (the
 * last id of the page). On the first page a live tail asks the server every two seconds for matching
 * entries newer than the newest shown. Each entry links to its session trace and message.
 */
import { useEffect, useMemo, useState } from 'react';
import { portalRoutes, type LogEntryJson as LogEntry, type QueryOf } from '../../../src/client/routes.ts';
import { errorMessage } from '../connection.ts';
import { ErrorNote, Panel } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

const logTypes = ['Assert', 'Error', 'Warning', 'Info', 'Trace', 'Alert'] as const;
const pageLength = 100;
const pollMs = 2000;
/** The text filter is sent once typing pauses this long. */
const typingMs = 300;

type LogQuery = QueryOf<typeof portalRoutes.searchLog>;

function logQuery(type: string, item: string, text: string): LogQuery {
  const chosen = logTypes.find((candidate) => candidate === type);
  return { ...(chosen ? { type: chosen } : {}), ...(item ? { item } : {}), ...(text ? { text } : {}) };
}

export function EventLog() {
  const { api } = useSession();
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [error, setError] = useState('');
  const [live, setLive] = useState(true);
  const [type, setType] = useState('');
  const [item, setItem] = useState('');
  const [typed, setTyped] = useState('');
  const [text, setText] = useState('');
  // Keyset paging: the `before` of each page seen, so "Newer" can go back.
  const [cursors, setCursors] = useState<Array<number | undefined>>([undefined]);
  const [knownItems, setKnownItems] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const filters = useMemo(() => logQuery(type, item, text), [type, item, text]);

  useEffect(() => {
    const timer = setTimeout(() => setText(typed), typingMs);
    return () => clearTimeout(timer);
  }, [typed]);

  useEffect(() => {
    let stopped = false;
    api.call(portalRoutes.searchLog, { query: { ...filters, ...(before !== undefined ? { before } : {}), limit: pageLength } }).then(
      (found) => {
        if (stopped) return;
        setError('');
        setEntries(found);
      },
      (failure: unknown) => !stopped && setError(errorMessage(failure)),
    );
    return () => {
      stopped = true;
    };
  }, [api, filters, before]);

  // The live tail: only on the first page, where new entries belong.
  useEffect(() => {
    if (!live || before !== undefined) return;
    const timer = setInterval(async () => {
      try {
        const newest = await api.call(portalRoutes.searchLog, { query: { ...filters, limit: pageLength } });
        setError('');
        setEntries((old) => {
          const top = old[0]?.id ?? 0;
          const fresh = newest.filter((entry) => entry.id > top);
          return fresh.length === 0 ? old : [...fresh, ...old].slice(0, pageLength);
        });
      } catch (failure) {
        setError(errorMessage(failure));
      }
    }, pollMs);
    return () => clearInterval(timer);
  }, [api, live, filters, before]);

  // The item filter offers every item seen so far (the chosen one stays even when its page is empty).
  useEffect(() => {
    setKnownItems((old) => {
      const names = new Set([...old, ...entries.map((entry) => entry.config_name).filter(Boolean)]);
      return names.size === old.length ? old : [...names].sort();
    });
  }, [entries]);

  const refilter = (change: () => void) => {
    change();
    setCursors([undefined]);
  };
  const last = entries.at(-1);

  return (
    <Panel
      title="Event log"
      actions={
        <label className="inline">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live tail
        </label>
      }
    >
      <div className="filters" role="search">
        <label>
          Type
          <select value={type} onChange={(e) => refilter(() => setType(e.target.value))} aria-label="Type filter">
            <option value="">All</option>
            {logTypes.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Item
          <select value={item} onChange={(e) => refilter(() => setItem(e.target.value))} aria-label="Item filter">
            <option value="">All</option>
            {knownItems.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Text
          <input value={typed} onChange={(e) => refilter(() => setTyped(e.target.value))} placeholder="contains (case-sensitive)…" aria-label="Text filter" />
        </label>
        <span className="muted" aria-live="polite">
          {entries.length} entries on this page{type || item || text ? ', filtered by the server' : ''}
        </span>
      </div>
      <ErrorNote error={error} />
      <table className="grid log" aria-label="Log entries">
        <thead>
          <tr>
            <th>Id</th>
            <th>Time (UTC)</th>
            <th>Type</th>
            <th>Item</th>
            <th>Text</th>
            <th>Source</th>
            <th>Session</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} className={`log-${entry.type.toLowerCase()}`}>
              <td>{entry.id}</td>
              <td className="nowrap">{entry.time_logged}</td>
              <td>{entry.type}</td>
              <td>{entry.config_name}</td>
              <td className="log-text">{entry.text}</td>
              <td className="muted">{[entry.source_class, entry.source_method].filter(Boolean).join('.')}</td>
              <td>{entry.session_id ? <a href={href('trace', entry.session_id)}>{entry.session_id}</a> : null}</td>
              <td>{entry.message_id ? <a href={href('messages', entry.message_id)}>{entry.message_id}</a> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={entries.length < pageLength || !last} onClick={() => last && setCursors([...cursors, last.id])}>
          Older →
        </button>
      </div>
    </Panel>
  );
}
