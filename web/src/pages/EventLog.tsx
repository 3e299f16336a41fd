/**
 * The event log: the newest entries, then a live tail polling `GET /log?since_id=` every two
 * seconds; filters by type, item and text; each entry links to its session trace and message.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { specRoutes, type LogEntryJson as LogEntry } from '../../../src/client/routes.ts';
import { errorMessage } from '../connection.ts';
import { ErrorNote, Pager, Panel } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

const logTypes = ['Assert', 'Error', 'Warning', 'Info', 'Trace', 'Alert'];
const bufferLimit = 5000;
const pageLength = 100;
const pollMs = 2000;

export function EventLog() {
  const { api } = useSession();
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [error, setError] = useState('');
  const [live, setLive] = useState(true);
  const [type, setType] = useState('');
  const [item, setItem] = useState('');
  const [text, setText] = useState('');
  const [page, setPage] = useState(0);
  const lastId = useRef(0);

  useEffect(() => {
    let stopped = false;
    lastId.current = 0;
    setEntries([]);
    api.call(specRoutes.log, { query: { top: 500 } }).then(
      (newest) => {
        if (stopped) return;
        lastId.current = newest[0]?.id ?? 0;
        setEntries(newest);
      },
      (failure: unknown) => setError(errorMessage(failure)),
    );
    return () => {
      stopped = true;
    };
  }, [api]);

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(async () => {
      try {
        const fresh = await api.call(specRoutes.log, { query: { since_id: lastId.current } });
        setError('');
        if (fresh.length === 0) return;
        lastId.current = fresh[fresh.length - 1]!.id;
        setEntries((old) => [...fresh.reverse(), ...old].slice(0, bufferLimit));
      } catch (failure) {
        setError(errorMessage(failure));
      }
    }, pollMs);
    return () => clearInterval(timer);
  }, [api, live]);

  const items = useMemo(() => [...new Set(entries.map((entry) => entry.config_name).filter(Boolean))].sort(), [entries]);
  const shown = useMemo(() => {
    const needle = text.toLowerCase();
    return entries.filter(
      (entry) => (!type || entry.type === type) && (!item || entry.config_name === item) && (!needle || entry.text.toLowerCase().includes(needle)),
    );
  }, [entries, type, item, text]);
  const pageEntries = shown.slice(page * pageLength, (page + 1) * pageLength);

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
          <select value={type} onChange={(e) => (setType(e.target.value), setPage(0))} aria-label="Type filter">
            <option value="">All</option>
            {logTypes.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Item
          <select value={item} onChange={(e) => (setItem(e.target.value), setPage(0))} aria-label="Item filter">
            <option value="">All</option>
            {items.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Text
          <input value={text} onChange={(e) => (setText(e.target.value), setPage(0))} placeholder="contains…" aria-label="Text filter" />
        </label>
        <span className="muted">
          {shown.length} of {entries.length} entries
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
          {pageEntries.map((entry) => (
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
      <Pager page={page} hasNext={(page + 1) * pageLength < shown.length} onPage={setPage} />
    </Panel>
  );
}
