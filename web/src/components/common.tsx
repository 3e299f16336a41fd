/** Small shared pieces: loading hook, error notes, status badges, times, pager. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../connection.ts';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Epoch ms as `YYYY-MM-DD HH:MM:SS.mmm` (UTC, like the spec's timestamps). */
export function formatTime(epochMs: number | null | undefined, withMs = true): string {
  if (epochMs === null || epochMs === undefined) return '';
  const d = new Date(epochMs);
  const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return withMs ? `${base}.${pad(d.getUTCMilliseconds(), 3)}` : base;
}

export function formatAge(fromMs: number | null, now = Date.now()): string {
  if (fromMs === null) return '';
  const seconds = Math.max(0, Math.round((now - fromMs) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when its dependencies change (and on reload()); keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], refreshMs = 0): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let live = true;
    setLoading(true);
    loader.current().then(
      (value) => live && (setData(value), setError(''), setLoading(false)),
      (failure: unknown) => live && (setError(errorMessage(failure)), setLoading(false)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(() => setTick((value) => value + 1), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { data, error, loading, reload };
}

/** Runs an action, remembering its error to show next to the button that started it. */
export function useAction(): { busy: boolean; error: string; run(action: () => Promise<unknown>): Promise<boolean>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await action();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError('') };
}

export function ErrorNote({ error }: { error: string }) {
  if (!error) return null;
  return (
    <div className="error-note" role="alert">
      {error}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

export function Panel({ title, actions, children }: { title: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="panel">
      <header className="panel-head">
        <h2>{title}</h2>
        {actions ? <div className="panel-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Pretty JSON of a text when it parses, else the text itself. */
export function prettyJson(text: string): string {
  if (text.trim() === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
