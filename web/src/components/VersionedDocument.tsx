/** The head of an editor of a versioned document (a transform, a rule class): its name and state, and its history. */
import { formatTime } from './common.tsx';

/** `Name version 3 · unsaved`, the title of the editor's panel. */
export function VersionTitle({ name, version, dirty }: { name: string; version: number | null; dirty: boolean }) {
  return (
    <>
      {name}{' '}
      <span className="muted">
        {version ? `version ${version}` : 'new'}
        {dirty ? ' · unsaved' : ''}
      </span>
    </>
  );
}

/**
 * A picker of the stored versions, newest first; nothing when there are none. Picking one over
 * unsaved edits asks first (the editors' unsaved guard covers leaving, not replacing in place).
 */
export function HistoryPicker({
  name,
  history,
  dirty,
  onLoad,
}: {
  name: string;
  history: ReadonlyArray<{ version: number; updatedAt: number }>;
  dirty: boolean;
  onLoad(version: number): void;
}) {
  if (history.length === 0) return null;
  return (
    <select
      value=""
      onChange={(e) =>
        e.target.value && (!dirty || window.confirm(`Load version ${e.target.value} of ${name} over your unsaved edits?`)) && onLoad(Number(e.target.value))
      }
      aria-label="History"
    >
      <option value="">History…</option>
      {[...history].reverse().map((entry) => (
        <option key={entry.version} value={entry.version}>
          v{entry.version} · {formatTime(entry.updatedAt, false)}
        </option>
      ))}
    </select>
  );
}
