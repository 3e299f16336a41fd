/**
 * The actions of a `when`, an `otherwise` or a rule set: `send` (targets, comma-separated, and an
 * optional transform), `return`, `delete`, `assign` (a property of the message and an expression),
 * `trace` (an expression); each with its problems.
 */
import { ListTools, NodeProblems, required, type RuleEditing } from './form-parts.tsx';
import { actionKinds, newAction, type ActionKind, type RuleAction, type RuleDefinition } from './model.ts';

/** The `datalist` of the transforms of the namespace, rendered once by the editor page. */
export const TRANSFORMS_LIST = 'rule-transforms';

export function ActionFields({ action, at, editing }: { action: RuleAction; at: (draft: RuleDefinition) => RuleAction; editing: RuleEditing }) {
  const set = (apply: (target: RuleAction) => void) => editing.change((draft) => apply(at(draft)));
  switch (action.type) {
    case 'send':
      return (
        <>
          <label className="rule-field">
            Target
            <input
              value={action.target}
              onChange={(e) =>
                set((a) => {
                  if (a.type === 'send') a.target = e.target.value;
                })
              }
              placeholder="Item, or A,B"
              aria-label="Target"
              {...required(action.target)}
            />
          </label>
          <label className="rule-field">
            Transform
            <input
              value={action.transform}
              onChange={(e) =>
                set((a) => {
                  if (a.type === 'send') a.transform = e.target.value;
                })
              }
              placeholder="(none)"
              list={TRANSFORMS_LIST}
              aria-label="Transform"
            />
          </label>
        </>
      );
    case 'trace':
      return (
        <label className="rule-field wide">
          Value
          <input
            value={action.value}
            onChange={(e) =>
              set((a) => {
                if (a.type === 'trace') a.value = e.target.value;
              })
            }
            aria-label="Trace value"
            spellCheck={false}
            {...required(action.value)}
          />
        </label>
      );
    case 'return':
      return <span className="muted rule-field-note">stop: the rules after this one are not evaluated</span>;
    case 'delete':
      return <span className="muted rule-field-note">the message is deleted, not routed</span>;
    case 'assign':
      return (
        <>
          <label className="rule-field">
            Property
            <input
              value={action.property}
              onChange={(e) =>
                set((a) => {
                  if (a.type === 'assign') a.property = e.target.value;
                })
              }
              placeholder="Document.status"
              spellCheck={false}
              aria-label="Property"
              {...required(action.property)}
            />
          </label>
          <label className="rule-field wide">
            Value
            <input
              value={action.value}
              onChange={(e) =>
                set((a) => {
                  if (a.type === 'assign') a.value = e.target.value;
                })
              }
              spellCheck={false}
              aria-label="Assigned value"
              {...required(action.value)}
            />
          </label>
        </>
      );
  }
}

export function AddAction({ label, editing, onAdd }: { label: string; editing: RuleEditing; onAdd: (action: RuleAction) => void }) {
  if (editing.readOnly) return null;
  return (
    <select className="rule-add" value="" onChange={(e) => e.target.value && onAdd(newAction(e.target.value as ActionKind))} aria-label={label}>
      <option value="">+ action…</option>
      {actionKinds.map((kind) => (
        <option key={kind} value={kind}>
          {kind}
        </option>
      ))}
    </select>
  );
}

/** One action as a row: its kind, fields, problems and tools. `at` reaches it in the model, `list` the list it is in. */
export function ActionRow({
  action,
  at,
  list,
  index,
  nodeKey,
  editing,
}: {
  action: RuleAction;
  at: (draft: RuleDefinition) => RuleAction;
  list: (draft: RuleDefinition) => unknown[];
  index: number;
  nodeKey: string;
  editing: RuleEditing;
}) {
  return (
    <li className={`rule-action rule-action-${action.type}`} data-node={nodeKey}>
      <div className="rule-row">
        <span className="rule-kind">{action.type}</span>
        <ActionFields action={action} at={at} editing={editing} />
        <ListTools label={`${action.type} action`} list={list} index={index} editing={editing} />
      </div>
      <NodeProblems problems={editing.problems.get(nodeKey)} />
    </li>
  );
}

export function ActionList({
  actions,
  list,
  prefix,
  label,
  editing,
}: {
  actions: RuleAction[];
  list: (draft: RuleDefinition) => RuleAction[];
  prefix: string;
  label: string;
  editing: RuleEditing;
}) {
  return (
    <div className="rule-action-list">
      {actions.length === 0 ? <div className="muted rule-empty">no action</div> : null}
      <ol className="rule-actions" aria-label={label}>
        {actions.map((action, index) => (
          <ActionRow
            key={index}
            action={action}
            at={(draft) => list(draft)[index]!}
            list={list}
            index={index}
            nodeKey={`${prefix}.a${index}`}
            editing={editing}
          />
        ))}
      </ol>
      <AddAction label={`Add action to ${label}`} editing={editing} onAdd={(action) => editing.change((draft) => void list(draft).push(action))} />
    </div>
  );
}
