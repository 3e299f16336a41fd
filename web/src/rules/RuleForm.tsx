/**
 * One rule of a rule set: name, disabled, constraints (on the message's source, class or document
 * type), the `when` clauses in order (condition in the DTL expression language, comment, actions)
 * and the optional `otherwise`. Its title is the rule log's label (`rule#2(name)`), so a test
 * result points at the rule it speaks of.
 */
import { ActionList } from './RuleActions.tsx';
import { ListTools, NodeProblems, required, type RuleEditing } from './form-parts.tsx';
import { CONSTRAINT_NAMES, newWhen, type RuleDefinition, type RuleNode } from './model.ts';

/** The `datalist` of the message classes (registered schemas), rendered once by the editor page. */
export const CLASSES_LIST = 'rule-classes';

export interface RuleFormProps {
  rule: RuleNode;
  /** Its number among the rules of its set (1-based), as the rule log counts. */
  number: number;
  at: (draft: RuleDefinition) => RuleNode;
  /** The items of its rule set, for moving and removing it. */
  list: (draft: RuleDefinition) => unknown[];
  index: number;
  nodeKey: string;
  editing: RuleEditing;
}

export function RuleForm({ rule, number, at, list, index, nodeKey, editing }: RuleFormProps) {
  const change = (apply: (draft: RuleNode) => void) => editing.change((draft) => apply(at(draft)));
  const label = `rule#${number}${rule.name ? `(${rule.name})` : ''}`;
  const fired = editing.fired.has(nodeKey) || rule.whens.some((_, w) => editing.fired.has(`${nodeKey}.w${w}`));
  return (
    <li className={`rule-card${rule.disabled ? ' disabled' : ''}${fired ? ' fired' : ''}`} data-node={nodeKey} aria-label={label}>
      <div className="rule-row">
        <span className="rule-title">
          {label}
          {fired ? (
            <>
              {' '}
              <span className="badge badge-ok">fired</span>
            </>
          ) : null}
        </span>
        <label className="rule-field">
          Name
          <input value={rule.name} onChange={(e) => change((r) => void (r.name = e.target.value))} aria-label="Rule name" />
        </label>
        <label className="inline">
          <input type="checkbox" checked={rule.disabled} onChange={(e) => change((r) => void (r.disabled = e.target.checked))} />
          Disabled
        </label>
        <ListTools label={label} list={list} index={index} editing={editing} />
      </div>
      <NodeProblems problems={editing.problems.get(nodeKey)} />

      <div className="rule-section">
        <div className="rule-section-head">
          Constraints
          {editing.readOnly ? null : (
            <button
              type="button"
              className="link"
              onClick={() => change((r) => void r.constraints.push({ name: 'source', value: '', pos: { line: 0, column: 0 } }))}
            >
              + constraint
            </button>
          )}
        </div>
        {rule.constraints.length === 0 ? <div className="muted rule-empty">any message</div> : null}
        <ol className="rule-constraints" aria-label={`Constraints of ${label}`}>
          {rule.constraints.map((constraint, c) => (
            <li key={c} data-node={`${nodeKey}.c${c}`}>
              <div className="rule-row">
                <select value={constraint.name} onChange={(e) => change((r) => void (r.constraints[c]!.name = e.target.value))} aria-label="Constraint">
                  {CONSTRAINT_NAMES.map((name) => (
                    <option key={name}>{name}</option>
                  ))}
                </select>
                <input
                  value={constraint.value}
                  onChange={(e) => change((r) => void (r.constraints[c]!.value = e.target.value))}
                  list={constraint.name === 'msgClass' ? CLASSES_LIST : undefined}
                  placeholder={constraint.name === 'source' ? 'Item, or A,B' : ''}
                  aria-label="Constraint value"
                />
                <ListTools label={`constraint ${constraint.name}`} list={(draft) => at(draft).constraints} index={c} editing={editing} />
              </div>
              <NodeProblems problems={editing.problems.get(`${nodeKey}.c${c}`)} />
            </li>
          ))}
        </ol>
      </div>

      {rule.whens.map((when, w) => {
        const whenKey = `${nodeKey}.w${w}`;
        return (
          <div
            key={w}
            className={`rule-section rule-when${editing.fired.has(whenKey) ? ' fired' : ''}`}
            data-node={whenKey}
            role="group"
            aria-label={`${label} when#${w + 1}`}
          >
            <div className="rule-row">
              <span className="rule-kind">when#{w + 1}</span>
              <label className="rule-field wide">
                Condition
                <input
                  value={when.condition}
                  onChange={(e) => change((r) => void (r.whens[w]!.condition = e.target.value))}
                  placeholder='Document.kind="urgent"'
                  spellCheck={false}
                  aria-label="Condition"
                  {...(editing.problems.get(whenKey)?.length ? { 'aria-invalid': true } : required(when.condition))}
                />
              </label>
              <label className="rule-field">
                Comment
                <input value={when.comment} onChange={(e) => change((r) => void (r.whens[w]!.comment = e.target.value))} aria-label="Comment" />
              </label>
              <ListTools label={`when#${w + 1}`} list={(draft) => at(draft).whens} index={w} editing={editing} />
            </div>
            <NodeProblems problems={editing.problems.get(whenKey)} />
            <ActionList
              actions={when.actions}
              list={(draft) => at(draft).whens[w]!.actions}
              prefix={whenKey}
              label={`${label} when#${w + 1}`}
              editing={editing}
            />
          </div>
        );
      })}
      {editing.readOnly ? null : (
        <div className="button-row rule-buttons">
          <button type="button" onClick={() => change((r) => void r.whens.push(newWhen()))}>
            + when
          </button>
          {rule.otherwise ? null : (
            <button type="button" onClick={() => change((r) => void (r.otherwise = []))}>
              + otherwise
            </button>
          )}
        </div>
      )}
      {rule.otherwise ? (
        <div className={`rule-section rule-otherwise${editing.fired.has(nodeKey) ? ' fired' : ''}`} role="group" aria-label={`${label} otherwise`}>
          <div className="rule-row">
            <span className="rule-kind">otherwise</span>
            <span className="muted">when no condition holds</span>
            {editing.readOnly ? null : (
              <button
                type="button"
                className="link danger"
                aria-label={`Remove otherwise of ${label}`}
                onClick={() => change((r) => void (r.otherwise = null))}
              >
                ✕
              </button>
            )}
          </div>
          <ActionList
            actions={rule.otherwise}
            list={(draft) => at(draft).otherwise ?? []}
            prefix={`${nodeKey}.o`}
            label={`${label} otherwise`}
            editing={editing}
          />
        </div>
      ) : null}
    </li>
  );
}
