/**
 * Every diagnostic of the document being edited — those of src/dtl as you type, or after Compile
 * those of the server (which also checks subtransforms, classes and schema paths) — each a button
 * that takes the editor to it: the action it is about in the graph, its line and column in the text.
 */
import type { Problem } from './model.ts';

export interface Located {
  problem: Problem;
  /** The graph's action it is about (`1.actions.0`) and that action's kind; null for the transform itself. */
  action: { position: string; kind: string } | null;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function DiagnosticsPanel({ items, compiled, onPick }: { items: Located[]; compiled: boolean; onPick(item: Located): void }) {
  const errors = items.filter((item) => item.problem.severity === 'error').length;
  return (
    <section className="dtl-diagnostics" aria-label="Diagnostics">
      <h3>
        Diagnostics{' '}
        <span className="muted">
          {plural(errors, 'error')}, {plural(items.length - errors, 'warning')} · {compiled ? 'from Compile' : 'as you type'}
        </span>
      </h3>
      {items.length === 0 ? (
        <p className="muted">No problem found.</p>
      ) : (
        <ul className="problems">
          {items.map((item, index) => {
            const { line, column, severity, message } = item.problem;
            const where = item.action ? `${item.action.kind} ${item.action.position}` : 'transform';
            return (
              <li key={index}>
                <button
                  type="button"
                  className={`diagnostic ${severity}`}
                  onClick={() => onPick(item)}
                  // The name says where it leads; the message stays visible text (and out of button names other tests look up).
                  aria-label={`Go to ${line}:${column} (${where})`}
                >
                  <span className="diagnostic-place">
                    {line}:{column}
                  </span>
                  <span className="diagnostic-action">{where}</span>
                  <span className="diagnostic-message">
                    {severity}: {message}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
