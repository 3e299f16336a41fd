/**
 * Store: what the namespace's store holds (size, oldest message and log entry, how freed space goes
 * back), its retention policy (admins edit it), and a purge that always shows a dry run first: the
 * admin sees what would go, then confirms that very bound (the dry run's instant, not "now" again).
 */
import { useState, type FormEvent } from 'react';
import { retentionRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, formatTime, useAction, useLoad } from '../components/common.tsx';
import { useSession } from '../session.tsx';

type StoreReport = ReplyOf<typeof retentionRoutes.getRetention>;
type PurgeReply = ReplyOf<typeof retentionRoutes.purgeMessages>;

const mb = 1024 * 1024;

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < mb) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * mb) return `${(bytes / mb).toFixed(1)} MB`;
  return `${(bytes / (1024 * mb)).toFixed(2)} GB`;
}

const reclaimText: Record<StoreReport['usage']['reclaim'], string> = {
  incremental: 'freed pages go back to the file system after each purge (SQLite incremental vacuum)',
  reuse: 'freed pages are reused by new messages; the file keeps its size (SQLite created before retention: see docs/operations.md to convert it)',
  vacuum: 'PostgreSQL: each purge is followed by VACUUM, which makes the space reusable',
};

const isoOf = (text: string | null) => (text === null ? null : Date.parse(text));

export function Store() {
  const { api, can } = useSession();
  const report = useLoad(() => api.call(retentionRoutes.getRetention), [api]);
  // Kept here, not in the form: the form is remounted (its key) once the saved policy comes back.
  const [policySaved, setPolicySaved] = useState(false);
  return (
    <>
      <Panel title="Store">
        <ErrorNote error={report.error} />
        {report.data ? <Usage report={report.data} /> : null}
      </Panel>
      {report.data ? (
        <PolicyForm
          key={JSON.stringify(report.data.policy)}
          report={report.data}
          editable={can('admin')}
          saved={policySaved}
          onSaving={() => setPolicySaved(false)}
          onSaved={() => {
            setPolicySaved(true);
            report.reload();
          }}
        />
      ) : null}
      {can('admin') ? <Purge onPurged={report.reload} /> : null}
    </>
  );
}

function Usage({ report }: { report: StoreReport }) {
  const { usage, lastRun } = report;
  return (
    <dl className="store-figures" aria-label="Store figures">
      <dt>Store size</dt>
      <dd data-figure="store-size">{formatBytes(usage.storeBytes)}</dd>
      <dt>Live data</dt>
      <dd>{formatBytes(usage.dataBytes)}</dd>
      <dt>Free for reuse</dt>
      <dd>{formatBytes(usage.freeBytes)}</dd>
      <dt>Freed space</dt>
      <dd>{reclaimText[usage.reclaim]}</dd>
      <dt>Messages in {report.namespace}</dt>
      <dd data-figure="messages">{usage.messages}</dd>
      <dt>Oldest message</dt>
      <dd data-figure="oldest-message">{usage.oldestMessage === null ? 'none' : formatTime(isoOf(usage.oldestMessage), false)}</dd>
      <dt>Event-log entries</dt>
      <dd data-figure="log-entries">{usage.logEntries}</dd>
      <dt>Oldest log entry</dt>
      <dd>{usage.oldestLogEntry === null ? 'none' : formatTime(isoOf(usage.oldestLogEntry), false)}</dd>
      <dt>Last background run</dt>
      <dd>
        {lastRun === null
          ? 'not yet on this server'
          : lastRun.error
            ? `${formatTime(isoOf(lastRun.at), false)}: failed: ${lastRun.error}`
            : `${formatTime(isoOf(lastRun.at), false)}: ${lastRun.messages} messages and ${lastRun.logEntries} log entries purged (about ${formatBytes(lastRun.bytesEstimate)})`}
      </dd>
    </dl>
  );
}

/** A number field's text: '' (not set) or a number. */
const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));

function PolicyForm({
  report,
  editable,
  saved,
  onSaving,
  onSaved,
}: {
  report: StoreReport;
  editable: boolean;
  saved: boolean;
  onSaving(): void;
  onSaved(): void;
}) {
  const { api } = useSession();
  const policy = report.policy;
  const [draft, setDraft] = useState({
    messageDays: policy?.messageDays?.toString() ?? '',
    logDays: policy?.logDays?.toString() ?? '',
    capMb: policy?.maxStoreBytes === null || policy?.maxStoreBytes === undefined ? '' : String(Math.round(policy.maxStoreBytes / mb)),
  });
  const save = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    onSaving();
    const cap = numberOrNull(draft.capMb);
    const body = {
      messageDays: numberOrNull(draft.messageDays),
      logDays: numberOrNull(draft.logDays),
      maxStoreBytes: cap === null ? null : Math.round(cap * mb),
    };
    if (await save.run(() => api.call(retentionRoutes.putRetention, { body }))) onSaved();
  }

  return (
    <Panel title="Retention policy">
      <form className="filters" aria-label="Retention policy" onSubmit={(event) => void submit(event)}>
        <label>
          Keep messages (days)
          <input
            type="number"
            min="0"
            step="any"
            value={draft.messageDays}
            disabled={!editable}
            placeholder="forever"
            aria-label="Keep messages (days)"
            onChange={(e) => setDraft({ ...draft, messageDays: e.target.value })}
          />
        </label>
        <label>
          Keep log entries (days)
          <input
            type="number"
            min="0"
            step="any"
            value={draft.logDays}
            disabled={!editable}
            placeholder="forever"
            aria-label="Keep log entries (days)"
            onChange={(e) => setDraft({ ...draft, logDays: e.target.value })}
          />
        </label>
        <label>
          Size cap (MB)
          <input
            type="number"
            min="1"
            step="1"
            value={draft.capMb}
            disabled={!editable}
            placeholder="none"
            aria-label="Size cap (MB)"
            onChange={(e) => setDraft({ ...draft, capMb: e.target.value })}
          />
        </label>
        {editable ? (
          <button type="submit" className="primary" disabled={save.busy}>
            Save policy
          </button>
        ) : null}
      </form>
      <ErrorNote error={save.error} />
      {saved ? (
        <p className="notice" role="status">
          Policy saved: it runs in the background, in small batches, a few minutes apart.
        </p>
      ) : null}
      <p className="muted">
        Empty fields keep that kind forever. Only finished messages go (never queued, in progress or suspended ones, nor any message of a session whose work
        goes on). {editable ? '' : 'Only an admin changes the policy.'}
      </p>
    </Panel>
  );
}

function Purge({ onPurged }: { onPurged(): void }) {
  const { api } = useSession();
  const [mode, setMode] = useState<'keepDays' | 'olderThan'>('keepDays');
  const [keepDays, setKeepDays] = useState('30');
  const [olderThan, setOlderThan] = useState('');
  const [includeLog, setIncludeLog] = useState(true);
  const [preview, setPreview] = useState<PurgeReply | null>(null);
  const [done, setDone] = useState<PurgeReply | null>(null);
  const action = useAction();

  /** Any change of the bound forgets the dry run: the confirmation must match what was shown. */
  const changed = (apply: () => void) => {
    apply();
    setPreview(null);
    setDone(null);
    action.clear();
  };

  async function dryRun(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const bound = mode === 'keepDays' ? { keepDays: Number(keepDays) } : { olderThan: olderThan.length === 16 ? `${olderThan}:00Z` : olderThan };
    await action.run(async () => setPreview(await api.call(retentionRoutes.purgeMessages, { body: { ...bound, includeLog, dryRun: true } })));
  }

  async function confirm() {
    if (!preview) return;
    const shown = preview;
    await action.run(async () => {
      setDone(await api.call(retentionRoutes.purgeMessages, { body: { olderThan: shown.olderThan, includeLog }, timeoutMs: 3_600_000 }));
      setPreview(null);
      onPurged();
    });
  }

  return (
    <Panel title="Purge">
      <form className="filters" aria-label="Purge" onSubmit={(event) => void dryRun(event)}>
        <label>
          <input type="radio" name="bound" checked={mode === 'keepDays'} onChange={() => changed(() => setMode('keepDays'))} /> Keep the last
          <input
            type="number"
            min="0"
            step="any"
            value={keepDays}
            aria-label="Days to keep"
            disabled={mode !== 'keepDays'}
            onChange={(e) => changed(() => setKeepDays(e.target.value))}
          />
          days
        </label>
        <label>
          <input type="radio" name="bound" checked={mode === 'olderThan'} onChange={() => changed(() => setMode('olderThan'))} /> Older than (UTC)
          <input
            type="datetime-local"
            value={olderThan}
            aria-label="Older than"
            disabled={mode !== 'olderThan'}
            onChange={(e) => changed(() => setOlderThan(e.target.value))}
          />
        </label>
        <label>
          <input type="checkbox" checked={includeLog} onChange={(e) => changed(() => setIncludeLog(e.target.checked))} /> Event-log entries too
        </label>
        <button type="submit" disabled={action.busy}>
          Dry run
        </button>
      </form>
      <ErrorNote error={action.error} />
      {preview ? (
        <div className="notice" role="status" aria-label="Dry run">
          <p>
            Older than {formatTime(Date.parse(preview.olderThan), false)} UTC: <strong>{preview.messages}</strong> messages ({preview.bodies} bodies) and{' '}
            <strong>{preview.logEntries}</strong> log entries would be purged, about {formatBytes(preview.bytesEstimate)}. Queued, in-progress and suspended
            messages are kept.
          </p>
          <button type="button" className="danger" disabled={action.busy || preview.messages + preview.logEntries === 0} onClick={() => void confirm()}>
            Purge {preview.messages} messages and {preview.logEntries} log entries
          </button>{' '}
          <button type="button" className="link" onClick={() => setPreview(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      {action.busy && !preview ? <p className="muted">Working — a purge goes in small batches so that production traffic keeps flowing.</p> : null}
      {done ? (
        <p className="notice" role="status" aria-label="Purge result">
          Purged {done.messages} messages and {done.logEntries} log entries (about {formatBytes(done.bytesEstimate)}; {formatBytes(done.reclaimedBytes)} given
          back to the file system) in {done.durationMs} ms.{done.complete ? '' : ' The server stopped it early: run it again for the rest.'}
        </p>
      ) : null}
    </Panel>
  );
}
