/**
 * The actions of a `when`, an `otherwise` or a rule set: `send` (targets, comma-separated, and an
 * optional transform), `return`, `delete`, `assign` (a property of the message and an expression),
 * `trace` (an expression); each with its problems.
 */
import { ListTools, NodeProblems, required, type RuleEditing } from './form-parts.tsx';
import { actionKinds, newAction, type ActionKind, type RuleAction, type RuleDefinition } from './model.ts';

/** The `datalist` of the transforms of the namespace, rendered once by the editor page. */
export const TRANSFORMS_LIST = 'rule-transforms';

interface ActionFieldProps {
  label: string;
  ariaLabel: string;
  value: string;
  onText: (text: string) => void;
  wide?: boolean;
  isRequired?: boolean;
  /** An expression or a path: no spelling marks. */
  code?: boolean;
  placeholder?: string;
  list?: string;
}

function ActionField({ label, ariaLabel, value, onText, wide = false, isRequired = false, code = false, placeholder, list }: ActionFieldProps) {
  return (
    <label className={wide ? 'rule-field wide' : 'rule-field'}>
      {label}
      <input
        value={value}
        onChange={(e) => onText(e.target.value)}
        placeholder={placeholder}
        list={list}
        spellCheck={code ? false : undefined}
        aria-label={ariaLabel}
        {...(isRequired ? required(value) : {})}
      />
    </label>
  );
}

export function ActionFields({ action, at, editing }: { action: RuleAction; at: (draft: RuleDefinition) => RuleAction; editing: RuleEditing }) {
  // The action in the draft has the kind of the one shown; the check narrows it for the compiler.
  const edit = (apply: (target: RuleAction) => void) => editing.change((draft) => apply(at(draft)));
  switch (action.type) {
    case 'send':
      return (
        <>
          <ActionField
            label="Target"
            ariaLabel="Target"
            value={action.target}
            onText={(text) =>
              edit((a) => {
                if (a.type === 'send') a.target = text;
              })
            }
            placeholder="Item, or A,B"
            isRequired
          />
          <ActionField
            label="Transform"
            ariaLabel="Transform"
            value={action.transform}
            onText={(text) =>
              edit((a) => {
                if (a.type === 'send') a.transform = text;
              })
            }
            placeholder="(none)"
            list={TRANSFORMS_LIST}
          />
        </>
      );
    case 'trace':
      return (
        <ActionField
          label="Value"
          ariaLabel="Trace value"
          value={action.value}
          onText={(text) =>
            edit((a) => {
              if (a.type === 'trace') a.value = text;
            })
          }
          wide
          code
          isRequired
        />
      );
    case 'return':
      return <span className="muted rule-field-note">stop: the rules after this one are not evaluated</span>;
    case 'delete':
      return <span className="muted rule-field-note">the message is deleted, not routed</span>;
    case 'assign':
      return (
        <>
          <ActionField
            label="Property"
            ariaLabel="Property"
            value={action.property}
            onText={(text) =>
              edit((a) => {
                if (a.type === 'assign') a.property = text;
              })
            }
            placeholder="Document.status"
            code
            isRequired
          />
          <ActionField
            label="Value"
            ariaLabel="Assigned value"
            value={action.value}
            onText={(text) =>
              edit((a) => {
                if (a.type === 'assign') a.value = text;
              })
            }
            wide
            code
            isRequired
          />
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
