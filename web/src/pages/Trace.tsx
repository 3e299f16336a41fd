/**
 * The visual trace of a session: one column per item (in the order they first appear), one row per
 * message drawn as an arrow from its source to its target, the session's log entries inline on their
 * item's column, messages and entries in one time order (traceRows). Selecting an arrow shows that message.
 */
import { useMemo, useState } from 'react';
import { portalRoutes, type MessageHeaderJson as MessageHeader, type ReplyOf } from '../../../src/client/routes.ts';

type SessionTrace = ReplyOf<typeof portalRoutes.sessionTrace>;
import { ErrorNote, Panel, formatTime, useLoad } from '../components/common.tsx';
import { MessageDetail } from './Messages.tsx';
import { useSession } from '../session.tsx';

type Row = { kind: 'message'; message: MessageHeader } | { kind: 'log'; entry: TraceLogEntry };

const columnWidth = 190;
const rowHeight = 34;
const top = 56;
const left = 150;

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

type TraceLogEntry = SessionTrace['log'][number];

/**
 * One timeline: messages by creation time and log entries by the millisecond they were logged, so an
 * entry written while a message was handled sits between the messages sent before and after it. At the
 * same millisecond a message comes before the entries (its handling logs after it arrived); equal
 * times keep the id order of their kind.
 */
export function traceRows(trace: SessionTrace): Row[] {
  const messages = [...trace.messages].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  const entries = [...trace.log].sort((a, b) => a.logged_at - b.logged_at || a.id - b.id);
  const rows: Row[] = [];
  let next = 0;
  for (const message of messages) {
    while (next < entries.length && entries[next]!.logged_at < message.createdAt) rows.push({ kind: 'log', entry: entries[next++]! });
    rows.push({ kind: 'message', message });
  }
  for (const entry of entries.slice(next)) rows.push({ kind: 'log', entry });
  return rows;
}

export function traceColumns(trace: SessionTrace): string[] {
  const columns: string[] = [];
  const add = (name: string) => name && !columns.includes(name) && columns.push(name);
  for (const message of [...trace.messages].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)) {
    add(message.source);
    add(message.target);
  }
  for (const entry of trace.log) add(entry.config_name);
  return columns;
}

export function Trace({ session }: { session: number }) {
  const { api } = useSession();
  const trace = useLoad(() => api.call(portalRoutes.sessionTrace, { params: { id: session } }), [api, session]);
  const [selected, setSelected] = useState<number | null>(null);
  const rows = useMemo(() => (trace.data ? traceRows(trace.data) : []), [trace.data]);
  const columns = useMemo(() => (trace.data ? traceColumns(trace.data) : []), [trace.data]);
  const x = (item: string) => left + columns.indexOf(item) * columnWidth + columnWidth / 2;
  const width = left + columns.length * columnWidth + 20;
  const height = top + rows.length * rowHeight + 20;
  const start = trace.data?.messages[0]?.createdAt ?? 0;

  return (
    <>
      <Panel
        title={`Trace of session ${session}`}
        actions={
          <button type="button" onClick={trace.reload}>
            Refresh
          </button>
        }
      >
        <ErrorNote error={trace.error} />
        {trace.data ? (
          <div className="trace-scroll">
            <svg className="trace" width={width} height={height} role="img" aria-label={`Trace of session ${session}`}>
              <defs>
                <marker
                  id="arrow"
                  viewBox="0 0 10 10"
                  refX="9"
                  refY="5"
                  markerWidth="10"
                  markerHeight="10"
                  markerUnits="userSpaceOnUse"
                  orient="auto-start-reverse"
                >
                  <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
                </marker>
              </defs>
              {columns.map((item) => (
                <g key={item} className="trace-column">
                  <text x={x(item)} y={24} textAnchor="middle" className="trace-item">
                    {item}
                  </text>
                  <line x1={x(item)} x2={x(item)} y1={34} y2={height - 10} />
                </g>
              ))}
              {rows.map((row, index) => {
                const y = top + index * rowHeight;
                if (row.kind === 'log') {
                  const cx = x(row.entry.config_name || columns[0] || '');
                  return (
                    <g key={`log-${row.entry.id}`} className={`trace-log log-${row.entry.type.toLowerCase()}`}>
                      <rect x={cx - columnWidth / 2 + 6} y={y - 12} width={columnWidth - 12} height={22} rx={4} />
                      <text x={cx} y={y + 3} textAnchor="middle">
                        {clip(`${row.entry.type}: ${row.entry.text}`, 27)}
                        <title>{`${row.entry.time_logged} ${row.entry.type} [${row.entry.config_name}] ${row.entry.text}`}</title>
                      </text>
                    </g>
                  );
                }
                const m = row.message;
                const x1 = x(m.source);
                const x2 = x(m.target);
                const self = x1 === x2;
                return (
                  <g
                    key={m.id}
                    className={`trace-message ${m.kind} status-${m.status}${selected === m.id ? ' selected' : ''}`}
                    tabIndex={0}
                    role="button"
                    aria-label={`Message ${m.id} ${m.kind} from ${m.source} to ${m.target}`}
                    onClick={() => setSelected(m.id)}
                    onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && setSelected(m.id)}
                  >
                    <rect className="trace-hit" x={0} y={y - rowHeight / 2} width={width} height={rowHeight - 2} />
                    <text x={8} y={y + 4} className="trace-time">
                      {`+${((m.createdAt - start) / 1000).toFixed(3)} s`}
                    </text>
                    {self ? (
                      <path d={`M ${x1} ${y - 6} c 40 0 40 14 0 14`} markerEnd="url(#arrow)" fill="none" />
                    ) : (
                      <line x1={x1} x2={x2} y1={y} y2={y} markerEnd="url(#arrow)" strokeDasharray={m.kind === 'response' ? '5 4' : undefined} />
                    )}
                    <text x={(x1 + x2) / 2 + (self ? 50 : 0)} y={y - 5} textAnchor="middle" className="trace-label">
                      {`#${m.id} ${m.kind}${m.status === 'error' ? ' ✖' : ''}`}
                    </text>
                    <title>{`${formatTime(m.createdAt)} #${m.id} ${m.kind} ${m.source} → ${m.target} (${m.status})${m.error ? `: ${m.error}` : ''}`}</title>
                  </g>
                );
              })}
            </svg>
          </div>
        ) : null}
        <p className="muted">Solid arrows are requests, dashed ones responses; red marks an error. Select an arrow (click or Enter) to see the message.</p>
      </Panel>
      {selected !== null ? <MessageDetail id={selected} /> : null}
    </>
  );
}
