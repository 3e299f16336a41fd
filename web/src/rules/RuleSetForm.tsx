/**
 * A rule set: name, effective begin and end (checked as typed: `YYYY-MM-DD` or
 * `YYYY-MM-DDTHH:MM[:SS]`, empty for no bound) and its items in order — rules, and actions outside
 * any rule (they run when evaluation reaches them).
 */
import { ActionRow, AddAction } from './RuleActions.tsx';
import { RuleForm } from './RuleForm.tsx';
import { ListTools, NodeProblems, type RuleEditing } from './form-parts.tsx';
import { newRule, type RuleDefinition, type RuleSetNode } from './model.ts';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/;

function dateField(value: string): { 'aria-invalid': boolean; title?: string } {
  return value.trim() === '' || DATE_TIME.test(value.trim()) ? { 'aria-invalid': false } : { 'aria-invalid': true, title: 'YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS' };
}

export function RuleSetForm({ set, index, editing }: { set: RuleSetNode; index: number; editing: RuleEditing }) {
  const at = (draft: RuleDefinition) => draft.ruleSets[index]!;
  const change = (apply: (draft: RuleSetNode) => void) => editing.change((draft) => apply(at(draft)));
  const label = `Rule set ${index + 1}${set.name ? ` (${set.name})` : ''}`;
  let rules = 0;
  return (
    <li className="rule-set" data-node={`s${index}`} aria-label={label}>
      <div className="rule-row">
        <span className="rule-title">{label}</span>
        <label className="rule-field">
          Name
          <input value={set.name} onChange={(e) => change((s) => void (s.name = e.target.value))} aria-label="Rule set name" />
        </label>
        <label className="rule-field">
          Effective begin
          <input
            value={set.effectiveBegin}
            onChange={(e) => change((s) => void (s.effectiveBegin = e.target.value))}
            placeholder="YYYY-MM-DD"
            aria-label="Effective begin"
            {...dateField(set.effectiveBegin)}
          />
        </label>
        <label className="rule-field">
          Effective end
          <input
            value={set.effectiveEnd}
            onChange={(e) => change((s) => void (s.effectiveEnd = e.target.value))}
            placeholder="YYYY-MM-DD"
            aria-label="Effective end"
            {...dateField(set.effectiveEnd)}
          />
        </label>
        <ListTools label={label} list={(draft) => draft.ruleSets} index={index} editing={editing} />
      </div>
      <NodeProblems problems={editing.problems.get(`s${index}`)} />
      {set.items.length === 0 ? <div className="muted rule-empty">no rule yet: a message reaching this set is not routed</div> : null}
      <ol className="rule-items" aria-label={`Rules of ${label}`}>
        {set.items.map((item, i) =>
          item.type === 'rule' ? (
            <RuleForm
              key={i}
              rule={item}
              number={++rules}
              at={(draft) => at(draft).items[i] as typeof item}
              list={(draft) => at(draft).items}
              index={i}
              nodeKey={`s${index}.i${i}`}
              editing={editing}
            />
          ) : (
            <ActionRow
              key={i}
              action={item}
              at={(draft) => at(draft).items[i] as typeof item}
              list={(draft) => at(draft).items}
              index={i}
              nodeKey={`s${index}.i${i}`}
              editing={editing}
            />
          ),
        )}
      </ol>
      {editing.readOnly ? null : (
        <div className="button-row rule-buttons">
          <button type="button" onClick={() => change((s) => void s.items.push(newRule()))}>
            + rule
          </button>
          <AddAction label={`Add action to ${label}`} editing={editing} onAdd={(action) => change((s) => void s.items.push(action))} />
        </div>
      )}
    </li>
  );
}
