/**
 * The graphical DTL editor: source and target doc types from the registered schemas, both as trees
 * with drag-and-drop mapping, the transform's language and parameters, the actions list with a
 * palette and validation as you type, the XML (or class text) side by side (both views stay in sync
 * through src/dtl's parser and serializer), compile, a diagnostics panel that leads to the action
 * and to the line, save with history, the test panel, and a question before unsaved edits are left.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ActionNode, TransformNode } from '../../../src/dtl/index.ts';
import { dtlRoutes } from '../../../src/client/routes.ts';
import { failedStatus, failureDetails } from '../connection.ts';
import { ErrorNote, Panel, useAction, useLoad } from '../components/common.tsx';
import { ActionList, Palette, type ActionEditing, type ActionSelection } from '../dtl/ActionList.tsx';
import { DiagnosticsPanel, type Located } from '../dtl/DiagnosticsPanel.tsx';
import { Mapper } from '../dtl/Mapper.tsx';
import {
  actionAt,
  appendAction,
  diagnosticAction,
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
  type Problem,
} from '../dtl/model.ts';
import { placeCaret } from '../components/place-caret.ts';
import { HistoryPicker, VersionTitle } from '../components/VersionedDocument.tsx';
import { TransformSettings } from '../dtl/TransformSettings.tsx';
import { useUnsavedGuard } from '../components/unsaved-guard.ts';
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
  const [diagnostics, setDiagnostics] = useState<Problem[]>([]);
  const [compiled, setCompiled] = useState<Problem[] | null>(null);
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  /** The text as stored (or the new transform's template): the edits are what differs from it. */
  const [baseline, setBaseline] = useState<string | null>(null);
  const [selected, setSelected] = useState<ActionSelection | null>(null);
  const xmlArea = useRef<HTMLTextAreaElement>(null);
  const save = useAction();
  const compile = useAction();
  const readOnly = !can('operator');

  const dirty = baseline !== null && xml !== baseline;
  useUnsavedGuard(dirty, `Leave the transform ${name}? Its unsaved edits will be lost.`);

  function load(text: string) {
    const parsed = parseXml(text, name);
    // Compile's diagnostics stay while they are about the text shown (the reload after Save is the same text).
    if (text !== xml) setCompiled(null);
    setXml(text);
    setDiagnostics(parsed.diagnostics);
    if (parsed.ast) setAst(parsed.ast);
  }

  useEffect(() => {
    if (stored.data === undefined) return;
    const text = stored.data ? stored.data.source : newTransformXml(query.get('source') ?? '', query.get('target') ?? '');
    load(text);
    setBaseline(text);
    setSavedVersion(stored.data?.version ?? null);
  }, [stored.data]);

  /** A change from the graphical side: re-serialize, re-read (positions, diagnostics). */
  function change(next: TransformNode) {
    const trip = roundTrip(next, name);
    setXml(trip.xml);
    setDiagnostics(trip.diagnostics);
    if (trip.ast) setAst(trip.ast);
    setCompiled(null);
  }

  /** Selects an action of the graph (scrolled into view) and puts the XML caret at `line:column`. */
  function reveal(position: string | null, line: number, column: number) {
    if (position !== null) setSelected((previous) => ({ position, request: (previous?.request ?? 0) + 1 }));
    if (xmlArea.current) placeCaret(xmlArea.current, line, column);
  }

  const sourceTree = useTree(ast?.sourceDocType ?? '');
  const targetTree = useTree(ast?.targetDocType ?? '');
  const links = useMemo(() => (ast ? mappingLinks(ast.actions) : []), [ast]);
  const problems = compiled ?? diagnostics;
  const errors = problems.filter((d) => d.severity === 'error');
  const located = useMemo(
    () =>
      problems.map((problem): Located => {
        const position = ast ? diagnosticAction(ast, problem) : null;
        const action = ast && position !== null ? actionAt(ast, position) : null;
        return { problem, action: position !== null && action ? { position, kind: action.kind } : null };
      }),
    [problems, ast],
  );

  const editing: ActionEditing = {
    diagnostics: problems,
    readOnly,
    selected,
    onSelect: (position) => {
      const action = ast && actionAt(ast, position);
      if (action) reveal(position, action.pos.line, action.pos.column);
    },
    onPatch: (path, patch) => ast && change(replaceAction(ast, path, patch)),
    // Positions shift when actions are removed or moved: the selection would land on another action.
    onRemove: (path) => ast && (setSelected(null), change(removeAction(ast, path))),
    onMove: (path, delta) => ast && (setSelected(null), change(moveAction(ast, path, delta))),
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
      setBaseline(xml);
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
        title={<VersionTitle name={name} version={savedVersion} dirty={dirty} />}
        actions={
          <>
            <HistoryPicker
              name={name}
              history={stored.data?.history ?? []}
              dirty={dirty}
              onLoad={(version) =>
                void save.run(() => api.call(dtlRoutes.getTransform, { params: { name }, query: { version } }).then((picked) => load(picked.source)))
              }
            />
            <button
              type="button"
              disabled={compile.busy}
              onClick={() => void compile.run(async () => setCompiled((await api.call(dtlRoutes.compileTransform, { body: { source: xml } })).diagnostics))}
            >
              Compile
            </button>
            {readOnly ? null : (
              <button type="button" className="primary" disabled={save.busy || !(dirty || savedVersion === null)} onClick={() => void saveDocument()}>
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
        {ast ? <TransformSettings ast={ast} name={name} readOnly={readOnly} onChange={change} /> : null}
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
              {ast?.className ? 'Class text' : 'XML'}
              <textarea
                ref={xmlArea}
                value={xml}
                onChange={(e) => load(e.target.value)}
                readOnly={readOnly}
                rows={24}
                spellCheck={false}
                aria-label="Transform XML"
                aria-invalid={errors.length > 0}
              />
            </label>
            <DiagnosticsPanel
              items={located}
              compiled={compiled !== null}
              onPick={(item) => reveal(item.action?.position ?? null, item.problem.line, item.problem.column)}
            />
          </div>
        </div>
      </Panel>
      {ast ? <DtlTester name={name} source={xml} /> : null}
    </>
  );
}
