/** Pieces every part of the rule form uses: the editing context, a node's problems, move and remove. */
import { move, type DtlDiagnostic, type RuleDefinition } from './model.ts';

export interface RuleEditing {
  /** A viewer's form, or a form whose text does not parse: nothing can be changed. */
  readOnly: boolean;
  /** Diagnostics by form node (model.ts, diagnosticsByNode). */
  problems: Map<string, DtlDiagnostic[]>;
  /** The form nodes where the last test of this very text fired (a rule's `when`, or the rule for its `otherwise`). */
  fired: Set<string>;
  /** Applies a change to a copy of the model; the text follows. */
  change(apply: (draft: RuleDefinition) => void): void;
}

export function NodeProblems({ problems }: { problems: DtlDiagnostic[] | undefined }) {
  if (!problems?.length) return null;
  return (
    <ul className="rule-node-problems">
      {problems.map((problem, index) => (
        <li key={index} className={`diagnostic ${problem.severity}`}>
          {problem.line}:{problem.column} {problem.message}
        </li>
      ))}
    </ul>
  );
}

/** Up, down and remove for the entry `index` of the list `list` reaches in the model. */
export function ListTools({ label, list, index, editing }: { label: string; list: (draft: RuleDefinition) => unknown[]; index: number; editing: RuleEditing }) {
  if (editing.readOnly) return null;
  return (
    <span className="rule-tools">
      <button
        type="button"
        className="link"
        aria-label={`Move ${label} up`}
        title="Move up"
        onClick={() => editing.change((draft) => move(list(draft), index, -1))}
      >
        ↑
      </button>
      <button
        type="button"
        className="link"
        aria-label={`Move ${label} down`}
        title="Move down"
        onClick={() => editing.change((draft) => move(list(draft), index, 1))}
      >
        ↓
      </button>
      <button
        type="button"
        className="link danger"
        aria-label={`Remove ${label}`}
        title="Remove"
        onClick={() => editing.change((draft) => void list(draft).splice(index, 1))}
      >
        ✕
      </button>
    </span>
  );
}

/** An input that reports a missing required value as it is typed (the parser would refuse it). */
export function required(value: string): { 'aria-invalid': boolean; title?: string } {
  return value.trim() === '' ? { 'aria-invalid': true, title: 'Required' } : { 'aria-invalid': false };
}
