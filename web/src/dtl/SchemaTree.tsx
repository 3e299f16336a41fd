/** A schema as a collapsible tree of fields; each row carries its DTL path for the mapper. */
import { useState } from 'react';
import type { SchemaFieldJson as SchemaField } from '../../../src/client/routes.ts';

export interface TreeProps {
  side: 'source' | 'target';
  fields: SchemaField[];
  /** Source rows start a drag; target rows accept a drop. */
  onPointerDown?(path: string, event: React.PointerEvent): void;
  /** Keyboard mapping: Enter on a source row picks it, Enter on a target row maps the picked one there. */
  onPick?(path: string): void;
  /** The source row picked with the keyboard, highlighted until it is mapped. */
  picked?: string;
  onExpand?(): void;
}

function Row({ field, depth, props }: { field: SchemaField; depth: number; props: TreeProps }) {
  const [open, setOpen] = useState(true);
  const toggle = () => {
    setOpen(!open);
    props.onExpand?.();
  };
  return (
    <li>
      <div
        className={`tree-row tree-${props.side}${props.picked === field.path ? ' picked' : ''}`}
        tabIndex={props.onPick ? 0 : undefined}
        onKeyDown={props.onPick ? (event) => event.key === 'Enter' && (event.preventDefault(), props.onPick!(field.path)) : undefined}
        data-side={props.side}
        data-path={field.path}
        style={{ paddingLeft: 6 + depth * 14 }}
        onPointerDown={props.onPointerDown ? (event) => props.onPointerDown!(field.path, event) : undefined}
        title={`${props.side}.{${field.path}}`}
      >
        {field.children.length ? (
          <button
            type="button"
            className="tree-toggle"
            onClick={toggle}
            onPointerDown={(e) => e.stopPropagation()}
            aria-expanded={open}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${field.name}`}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tree-toggle" />
        )}
        <span className="tree-name">{field.name}</span>
        <span className="tree-type">{field.type}</span>
      </div>
      {open && field.children.length ? <Branch fields={field.children} depth={depth + 1} props={props} /> : null}
    </li>
  );
}

function Branch({ fields, depth, props }: { fields: SchemaField[]; depth: number; props: TreeProps }) {
  return (
    <ul className="tree">
      {fields.map((field) => (
        <Row key={field.path} field={field} depth={depth} props={props} />
      ))}
    </ul>
  );
}

export function SchemaTree(props: TreeProps) {
  if (props.fields.length === 0) return <p className="muted tree-empty">No schema: choose a doc type with fields.</p>;
  return <Branch fields={props.fields} depth={0} props={props} />;
}
