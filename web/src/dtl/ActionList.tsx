/**
 * The actions of a transform as an editable, nested list: each action's fields, its diagnostics
 * (validated as you type: every change is re-read through src/dtl), move / remove buttons, and a
 * palette to add actions to the top level or inside a container.
 */
import { useEffect, useRef } from 'react';
import type { ActionNode } from '../../../src/dtl/index.ts';
import { diagnosticsAt, newAction, paletteKinds, type ActionPath, type PaletteKind, type Problem } from './model.ts';

/** The selected action. `request` changes on every selection, so choosing the same action again scrolls to it again. */
export interface ActionSelection {
  position: string;
  request: number;
}

export interface ActionEditing {
  diagnostics: Problem[];
  readOnly: boolean;
  /** The selected action (`2.actions.0`): chosen here, or from the diagnostics panel. */
  selected: ActionSelection | null;
  onSelect(position: string): void;
  onPatch(path: ActionPath, patch: Partial<ActionNode>): void;
  onRemove(path: ActionPath): void;
  onMove(path: ActionPath, delta: -1 | 1): void;
  onAdd(container: ActionPath, action: ActionNode): void;
}

function Field({
  label,
  value,
  onChange,
  wide,
  readOnly,
  invalid,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  wide?: boolean;
  readOnly: boolean;
  invalid?: boolean;
}) {
  return (
    <label className={wide ? 'action-field wide' : 'action-field'}>
      {label}
      <input value={value} onChange={(e) => onChange(e.target.value)} readOnly={readOnly} aria-label={label} aria-invalid={invalid} spellCheck={false} />
    </label>
  );
}

export function Palette({ onAdd, label, disabled }: { onAdd(kind: PaletteKind): void; label: string; disabled: boolean }) {
  return (
    <select className="palette" value="" disabled={disabled} onChange={(e) => e.target.value && onAdd(e.target.value as PaletteKind)} aria-label={label}>
      <option value="">+ Add action…</option>
      {paletteKinds.map((kind) => (
        <option key={kind} value={kind}>
          {kind}
        </option>
      ))}
    </select>
  );
}

function Fields({ action, path, editing }: { action: ActionNode; path: ActionPath; editing: ActionEditing }) {
  const patch = (change: Partial<ActionNode>) => editing.onPatch(path, change);
  const ro = editing.readOnly;
  const bad = diagnosticsAt(editing.diagnostics, action, path.join('.')).some((d) => d.severity === 'error');
  switch (action.kind) {
    case 'assign':
      return (
        <>
          <Field label="Property" value={action.property} onChange={(property) => patch({ property })} readOnly={ro} />
          <Field label="Value" value={action.value} onChange={(value) => patch({ value })} wide readOnly={ro} invalid={bad} />
          <label className="action-field">
            Action
            <select value={action.action} disabled={ro} onChange={(e) => patch({ action: e.target.value as typeof action.action })} aria-label="Assign action">
              {['set', 'append', 'insert', 'remove', 'clear'].map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </label>
          {action.action === 'insert' || action.action === 'remove' || action.key ? (
            <Field label="Key" value={action.key} onChange={(key) => patch({ key })} readOnly={ro} />
          ) : null}
        </>
      );
    case 'foreach':
      return (
        <>
          <Field label="Property" value={action.property} onChange={(property) => patch({ property })} wide readOnly={ro} invalid={bad} />
          <Field label="Key" value={action.key} onChange={(key) => patch({ key })} readOnly={ro} />
        </>
      );
    case 'if':
      return <Field label="Condition" value={action.condition} onChange={(condition) => patch({ condition })} wide readOnly={ro} invalid={bad} />;
    case 'subtransform':
      return (
        <>
          <Field label="Class" value={action.className} onChange={(className) => patch({ className })} readOnly={ro} />
          <Field label="Source object" value={action.sourceObj} onChange={(sourceObj) => patch({ sourceObj })} readOnly={ro} />
          <Field label="Target object" value={action.targetObj} onChange={(targetObj) => patch({ targetObj })} readOnly={ro} />
        </>
      );
    case 'trace':
      return <Field label="Value" value={action.value} onChange={(value) => patch({ value })} wide readOnly={ro} invalid={bad} />;
    case 'code':
    case 'sql':
      return (
        <label className="action-field wide">
          {action.kind === 'code' ? 'Code' : 'SQL'}
          <textarea
            rows={3}
            value={action.text}
            readOnly={ro}
            onChange={(e) => patch({ text: e.target.value })}
            aria-label={action.kind === 'code' ? 'Code' : 'SQL'}
            spellCheck={false}
          />
        </label>
      );
    case 'comment':
      return <Field label="Comment" value={action.annotation ?? ''} onChange={(annotation) => patch({ annotation })} wide readOnly={ro} />;
    case 'switch':
      return <span className="muted">switch with {action.cases.length} case(s): edit it in the XML.</span>;
    default:
      return null;
  }
}

function ActionRow({ action, path, index, count, editing }: { action: ActionNode; path: ActionPath; index: number; count: number; editing: ActionEditing }) {
  const position = path.join('.');
  const problems = diagnosticsAt(editing.diagnostics, action, position);
  const selected = editing.selected?.position === position;
  const request = selected ? editing.selected?.request : undefined;
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    // 'nearest' leaves a row already in view where it is (a click on the row itself does not jump the page).
    if (request !== undefined) row.current?.scrollIntoView({ block: 'nearest' });
  }, [request]);
  const children: Array<{ key: 'actions' | 'whenTrue' | 'whenFalse'; label: string; list: ActionNode[] }> =
    action.kind === 'foreach' || action.kind === 'group'
      ? [{ key: 'actions', label: action.kind === 'foreach' ? 'for each' : 'group', list: action.actions }]
      : action.kind === 'if'
        ? [
            { key: 'whenTrue', label: 'true', list: action.whenTrue ?? [] },
            { key: 'whenFalse', label: 'false', list: action.whenFalse ?? [] },
          ]
        : [];
  return (
    <li
      ref={row}
      className={`action action-${action.kind}${action.disabled ? ' disabled' : ''}${selected ? ' selected' : ''}`}
      data-action={position}
      aria-label={`${action.kind} action`}
      aria-current={selected ? 'true' : undefined}
    >
      <div className="action-head">
        <button type="button" className="action-kind link" onClick={() => editing.onSelect(position)} title={`Select this action (${position})`}>
          {action.kind}
        </button>
        <div className="action-fields">
          <Fields action={action} path={path} editing={editing} />
        </div>
        {editing.readOnly ? null : (
          <div className="action-tools">
            <button type="button" className="link" disabled={index === 0} onClick={() => editing.onMove(path, -1)} aria-label="Move up">
              ↑
            </button>
            <button type="button" className="link" disabled={index === count - 1} onClick={() => editing.onMove(path, 1)} aria-label="Move down">
              ↓
            </button>
            <button type="button" className="link danger" onClick={() => editing.onRemove(path)} aria-label={`Remove ${action.kind}`}>
              ✕
            </button>
          </div>
        )}
      </div>
      {problems.map((problem, at) => (
        <div key={at} className={`diagnostic ${problem.severity}`} role={problem.severity === 'error' ? 'alert' : undefined}>
          {problem.line}:{problem.column} {problem.message}
        </div>
      ))}
      {children.map((branch) => (
        <div key={branch.key} className="action-branch">
          <div className="branch-label">
            {branch.label}
            {editing.readOnly ? null : (
              <Palette
                label={`Add to ${action.kind} ${branch.label}`}
                disabled={false}
                onAdd={(kind) => editing.onAdd([...path, branch.key], newAction(kind))}
              />
            )}
          </div>
          <ActionList actions={branch.list} prefix={[...path, branch.key]} editing={editing} />
        </div>
      ))}
    </li>
  );
}

export function ActionList({ actions, prefix, editing }: { actions: ActionNode[]; prefix: ActionPath; editing: ActionEditing }) {
  if (actions.length === 0) return <p className="muted empty-branch">No action yet.</p>;
  return (
    <ol className="actions">
      {actions.map((action, index) => (
        <ActionRow key={index} action={action} path={[...prefix, index]} index={index} count={actions.length} editing={editing} />
      ))}
    </ol>
  );
}
