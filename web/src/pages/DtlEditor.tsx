/**
 * The graphical DTL editor: source and target doc types from the registered schemas, both as trees
 * with drag-and-drop mapping, the actions list with a palette and validation as you type, the XML
 * side by side (both views stay in sync through src/dtl's parser and serializer), compile with
 * positioned diagnostics, save with history, and the test panel.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ActionNode, DtlDiagnostic, TransformNode } from '../../../src/dtl/index.ts';
import { dtlRoutes } from '../../../src/client/routes.ts';
import { failedStatus, failureDetails } from '../connection.ts';
import { ErrorNote, Panel, formatTime, useAction, useLoad } from '../components/common.tsx';
import { ActionList, Palette, type ActionEditing } from '../dtl/ActionList.tsx';
import { Mapper } from '../dtl/Mapper.tsx';
import {
  appendAction,
  edit,
  mapFields,
  mappingLinks,
  moveAction,
  newAction,
  newTransformXml,
  parseXml,
  removeAction,
  replaceAction,
  roundTrip,
} from '../dtl/model.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { DtlTester } from './DtlTester.tsx';

type DiagnosticJson = dtlRoutes.DiagnosticJson;

/** A diagnostic the server attached to a refused save. */
function isDiagnostic(value: unknown): value is DiagnosticJson {
  return typeof value === 'object' && value !== null && 'line' in value && 'column' in value && 'message' in value && 'severity' in value;
}

function useTree(docType: string) {
  const { api } = useSession();
  return useLoad(async () => (docType ? (await api.call(dtlRoutes.schemaTree, { params: { name: docType } })).fields : []), [api, docType]);
}

/** Puts the caret of a textarea at a line and column (1-based) and scrolls there. */
function jumpTo(area: HTMLTextAreaElement | null, line: number, column: number) {
  if (!area) return;
  const lines = area.value.split('\n');
  const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + Math.max(0, column - 1);
  area.focus();
  area.setSelectionRange(offset, offset);
  area.scrollTop = Math.max(0, (line - 4) * 17);
}

export function DtlEditor({ name, query }: { name: string; query: URLSearchParams }) {
  const { api, can } = useSession();
  const stored = useLoad(async () => {
    try {
      return await api.call(dtlRoutes.getTransform, { params: { name } });
    } catch (error) {
      if (failedStatus(error) === 404) return null;
      throw error;
    }
  }, [api, name]);
  const schemas = useLoad(() => api.call(dtlRoutes.listSchemas), [api]);
  const [xml, setXml] = useState('');
  const [ast, setAst] = useState<TransformNode | null>(null);
  const [diagnostics, setDiagnostics] = useState<DtlDiagnostic[]>([]);
  const [compiled, setCompiled] = useState<DiagnosticJson[] | null>(null);
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const [dirty, setDirty] = useState(false);
  const xmlArea = useRef<HTMLTextAreaElement>(null);
  const save = useAction();
  const compile = useAction();
  const readOnly = !can('operator');

  function load(text: string) {
    const parsed = parseXml(text, name);
    setXml(text);
    setDiagnostics(parsed.diagnostics);
    if (parsed.ast) setAst(parsed.ast);
  }

  useEffect(() => {
    if (stored.data === undefined) return;
    load(stored.data ? stored.data.source : newTransformXml(query.get('source') ?? '', query.get('target') ?? ''));
    setDirty(stored.data === null);
    setSavedVersion(stored.data?.version ?? null);
  }, [stored.data]);

  /** A change from the graphical side: re-serialize, re-read (positions, diagnostics). */
  function change(next: TransformNode) {
    const trip = roundTrip(next, name);
    setXml(trip.xml);
    setDiagnostics(trip.diagnostics);
    if (trip.ast) setAst(trip.ast);
    setCompiled(null);
    setDirty(true);
  }

  /** A change typed in the XML: the graphical side follows whenever the document parses. */
  function typeXml(text: string) {
    load(text);
    setCompiled(null);
    setDirty(true);
  }

  const sourceTree = useTree(ast?.sourceDocType ?? '');
  const targetTree = useTree(ast?.targetDocType ?? '');
  const links = useMemo(() => (ast ? mappingLinks(ast.actions) : []), [ast]);
  const problems: Array<DtlDiagnostic | DiagnosticJson> = compiled ?? diagnostics;
  const errors = problems.filter((d) => d.severity === 'error');

  const editing: ActionEditing = {
    diagnostics,
    readOnly,
    onPatch: (path, patch) => ast && change(replaceAction(ast, path, patch)),
    onRemove: (path) => ast && change(removeAction(ast, path)),
    onMove: (path, delta) => ast && change(moveAction(ast, path, delta)),
    onAdd: (container, action: ActionNode) => ast && change(appendAction(ast, container, action)),
  };

  async function saveDocument() {
    const ok = await save.run(async () => {
      try {
        const reply = await api.call(dtlRoutes.putTransform, { params: { name }, body: { source: xml } });
        setSavedVersion(reply.version);
      } catch (error) {
        const details = failureDetails(error);
        if (typeof details === 'object' && details !== null && 'diagnostics' in details && Array.isArray(details.diagnostics))
          setCompiled(details.diagnostics.filter(isDiagnostic));
        throw error;
      }
    });
    if (ok) {
      setDirty(false);
      stored.reload();
    }
  }

  const docTypeSelect = (side: 'sourceDocType' | 'targetDocType', label: string) => (
    <label>
      {label}
      <select
        value={ast?.[side] ?? ''}
        disabled={!ast || readOnly}
        onChange={(e) => ast && change(edit(ast, (draft) => void (draft[side] = e.target.value)))}
        aria-label={label}
      >
        <option value="">(none)</option>
        {[...new Set([...(schemas.data?.schemas.map((s) => s.name) ?? []), ast?.[side] ?? ''])].filter(Boolean).map((docType) => (
          <option key={docType}>{docType}</option>
        ))}
      </select>
    </label>
  );

  return (
    <>
      <Panel
        title={
          <>
            {name}{' '}
            <span className="muted">
              {savedVersion ? `version ${savedVersion}` : 'new'}
              {dirty ? ' · unsaved' : ''}
            </span>
          </>
        }
        actions={
          <>
            {stored.data?.history.length ? (
              <select
                value=""
                onChange={(e) =>
                  e.target.value &&
                  void save.run(() =>
                    api
                      .call(dtlRoutes.getTransform, { params: { name }, query: { version: Number(e.target.value) } })
                      .then((version) => (load(version.source), setDirty(true))),
                  )
                }
                aria-label="History"
              >
                <option value="">History…</option>
                {[...stored.data.history].reverse().map((entry) => (
                  <option key={entry.version} value={entry.version}>
                    v{entry.version} · {formatTime(entry.updatedAt, false)}
                  </option>
                ))}
              </select>
            ) : null}
            <button
              type="button"
              disabled={compile.busy}
              onClick={() => void compile.run(async () => setCompiled((await api.call(dtlRoutes.compileTransform, { body: { source: xml } })).diagnostics))}
            >
              Compile
            </button>
            {readOnly ? null : (
              <button type="button" className="primary" disabled={save.busy || !dirty} onClick={() => void saveDocument()}>
                Save
              </button>
            )}
            <a href={href('dtl')}>All transforms</a>
          </>
        }
      >
        <ErrorNote error={stored.error || schemas.error || compile.error || save.error} />
        {savedVersion && !dirty && !save.error ? (
          <div className="notice" role="status">
            Saved as version {savedVersion}.
          </div>
        ) : null}
        <div className="dtl-header">
          {docTypeSelect('sourceDocType', 'Source doc type')}
          {docTypeSelect('targetDocType', 'Target doc type')}
          <label>
            Create
            <select
              value={ast?.create ?? 'new'}
              disabled={!ast || readOnly}
              onChange={(e) => ast && change(edit(ast, (draft) => void (draft.create = e.target.value as TransformNode['create'])))}
            >
              <option>new</option>
              <option>copy</option>
              <option>existing</option>
            </select>
          </label>
          <span className="muted">
            {ast ? `${ast.sourceClass} → ${ast.targetClass}` : ''}{' '}
            {compiled ? `· compiled: ${errors.length} error(s), ${problems.length - errors.length} warning(s)` : ''}
          </span>
        </div>
        <div className="dtl-layout">
          <div className="dtl-graphic">
            <Mapper
              source={sourceTree.data ?? []}
              target={targetTree.data ?? []}
              links={links}
              onMap={(from, to) => ast && !readOnly && change(mapFields(ast, from, to))}
            />
            <ErrorNote error={sourceTree.error || targetTree.error} />
            <div className="branch-label top-palette">
              Actions {readOnly ? null : <Palette label="Add action" disabled={!ast} onAdd={(kind) => ast && change(appendAction(ast, [], newAction(kind)))} />}
            </div>
            {ast ? <ActionList actions={ast.actions} prefix={[]} editing={editing} /> : null}
          </div>
          <div className="dtl-xml">
            <label>
              XML
              <textarea
                ref={xmlArea}
                value={xml}
                onChange={(e) => typeXml(e.target.value)}
                readOnly={readOnly}
                rows={24}
                spellCheck={false}
                aria-label="Transform XML"
                aria-invalid={errors.length > 0}
              />
            </label>
            <ul className="problems" aria-label="Problems">
              {problems.map((problem, index) => (
                <li key={index} className={`diagnostic ${problem.severity}`}>
                  <button type="button" className="link" onClick={() => jumpTo(xmlArea.current, problem.line, problem.column)}>
                    {problem.line}:{problem.column}
                  </button>{' '}
                  {problem.severity}: {problem.message}
                </li>
              ))}
            </ul>
          </div>
        </div>
      </Panel>
      {ast ? <DtlTester name={name} source={xml} /> : null}
    </>
  );
}
