/**
 * The routing rule editor: the rule class as a form (rule sets, rules, constraints, when/otherwise
 * with their actions) beside its class text, kept in sync both ways through src/rules — the parser,
 * checker and serializer the server uses. Conditions are checked as they are typed; Compile asks the
 * server; problems carry line:column (click to go there). Operators save (with history); viewers read.
 * Unsaved edits are guarded, and the test panel runs the text being edited.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { dtlRoutes, ruleRoutes } from '../../../src/client/routes.ts';
import { failedStatus, failureDetails } from '../connection.ts';
import { ErrorNote, Panel, useAction, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { DefinitionForm } from '../rules/DefinitionForm.tsx';
import { TRANSFORMS_LIST } from '../rules/RuleActions.tsx';
import { CLASSES_LIST } from '../rules/RuleForm.tsx';
import type { RuleEditing } from '../rules/form-parts.tsx';
import {
  diagnosticsByNode,
  edit,
  inspectRuleDefinition,
  newRuleClass,
  nodesAtLines,
  writeRuleText,
  type DtlDiagnostic,
  type RuleDefinition,
} from '../rules/model.ts';
import { placeCaret } from '../components/place-caret.ts';
import { HistoryPicker, VersionTitle } from '../components/VersionedDocument.tsx';
import { useUnsavedGuard } from '../components/unsaved-guard.ts';
import { useSession } from '../session.tsx';
import { RuleTester, firedSteps } from './RuleTester.tsx';

type Problem = Pick<DtlDiagnostic, 'line' | 'column' | 'severity' | 'message'>;

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'line' in value && 'column' in value && 'message' in value && 'severity' in value;
}

export function RuleEditor({ name }: { name: string }) {
  const { api, can } = useSession();
  const readOnly = !can('operator');
  const stored = useLoad(async () => {
    try {
      return await api.call(ruleRoutes.getRule, { params: { name } });
    } catch (error) {
      if (failedStatus(error) === 404) return null;
      throw error;
    }
  }, [api, name]);
  const transforms = useLoad(() => api.call(dtlRoutes.listTransforms), [api]);
  const schemas = useLoad(() => api.call(dtlRoutes.listSchemas), [api]);
  const [text, setText] = useState('');
  /** What the form shows: the last model that parsed, or the form's own edits. */
  const [draft, setDraft] = useState<RuleDefinition | null>(null);
  /** The model of the text as it is now (null when it does not parse): the positions of the diagnostics. */
  const [parsed, setParsed] = useState<RuleDefinition | null>(null);
  /** Whether the text was last changed by typing it: a text that does not parse then locks the form. */
  const [typed, setTyped] = useState(false);
  const [diagnostics, setDiagnostics] = useState<Problem[]>([]);
  const [compiled, setCompiled] = useState<Problem[] | null>(null);
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const [dirty, setDirty] = useState(false);
  /** The lines where the last test fired, and the text it ran on: the marks last while the text does. */
  const [tested, setTested] = useState<{ source: string; lines: number[] } | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const save = useAction();
  const compile = useAction();

  function read(next: string, fromText: boolean) {
    const found = inspectRuleDefinition(next, name);
    setText(next);
    setParsed(found.definition);
    setDiagnostics(found.diagnostics);
    setTyped(fromText);
    setCompiled(null);
    if (found.definition && fromText) setDraft(found.definition);
  }

  useEffect(() => {
    if (stored.data === undefined) return;
    read(stored.data?.source ?? newRuleClass(name), true);
    setDirty(stored.data === null && !readOnly);
    setSavedVersion(stored.data?.version ?? null);
  }, [stored.data]);

  useUnsavedGuard(dirty, `Leave ${name}? Its unsaved edits will be lost.`);

  const locked = typed && parsed === null;
  const problems = compiled ?? diagnostics;
  const errors = problems.filter((problem) => problem.severity === 'error');
  const byNode = useMemo(
    () =>
      parsed
        ? diagnosticsByNode(
            parsed,
            problems.map((p) => ({ document: name, ...p })),
          )
        : new Map(),
    [parsed, problems, name],
  );

  const fired = useMemo(() => (parsed && tested?.source === text ? nodesAtLines(parsed, tested.lines) : new Set<string>()), [parsed, tested, text]);

  const editing: RuleEditing = {
    readOnly: readOnly || locked,
    problems: byNode,
    fired,
    change(apply) {
      if (!draft) return;
      const next = edit(draft, apply);
      setDraft(next);
      read(writeRuleText(next), false);
      setDirty(true);
    },
  };

  async function saveRule() {
    const ok = await save.run(async () => {
      try {
        setSavedVersion((await api.call(ruleRoutes.putRule, { params: { name }, body: { source: text } })).version);
      } catch (error) {
        const details = failureDetails(error);
        if (typeof details === 'object' && details !== null && 'diagnostics' in details && Array.isArray(details.diagnostics))
          setCompiled(details.diagnostics.filter(isProblem));
        throw error;
      }
    });
    if (ok) {
      setDirty(false);
      stored.reload();
    }
  }

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
                void save.run(async () => {
                  const picked = await api.call(ruleRoutes.getRule, { params: { name }, query: { version } });
                  read(picked.source, true);
                  setDirty(!readOnly);
                })
              }
            />
            <button
              type="button"
              disabled={compile.busy}
              onClick={() => void compile.run(async () => setCompiled((await api.call(ruleRoutes.compileRule, { body: { source: text } })).diagnostics))}
            >
              Compile
            </button>
            {readOnly ? null : (
              <button type="button" className="primary" disabled={save.busy || !dirty} onClick={() => void saveRule()}>
                Save
              </button>
            )}
            <a href={href('rules')}>All rules</a>
          </>
        }
      >
        <ErrorNote error={stored.error || compile.error || save.error} />
        {savedVersion && !dirty && !save.error ? (
          <div className="notice" role="status">
            Saved as version {savedVersion}.
          </div>
        ) : null}
        {readOnly ? <div className="notice">Read-only: an operator edits and saves rules.</div> : null}
        {locked ? (
          <div className="notice" role="status">
            The class text does not parse: the form shows the last version that did and waits until the text is fixed.
          </div>
        ) : null}
        <div className="rule-layout">
          <fieldset className="plain rule-graphic" disabled={readOnly || locked} aria-label="Rule form">
            {draft ? <DefinitionForm definition={draft} editing={editing} /> : null}
          </fieldset>
          <div className="rule-xml">
            <label>
              Class text
              <textarea
                ref={area}
                value={text}
                onChange={(e) => {
                  read(e.target.value, true);
                  setDirty(true);
                }}
                readOnly={readOnly}
                rows={28}
                spellCheck={false}
                aria-label="Rule class text"
                aria-invalid={errors.length > 0}
              />
            </label>
            <div className="muted">
              {compiled
                ? `compiled by the server: ${errors.length} error(s), ${problems.length - errors.length} warning(s)`
                : `checked as typed: ${errors.length} error(s)`}
            </div>
            <ul className="problems" aria-label="Problems">
              {problems.map((problem, index) => (
                <li key={index} className={`diagnostic ${problem.severity}`}>
                  <button type="button" className="link" onClick={() => placeCaret(area.current, problem.line, problem.column)}>
                    {problem.line}:{problem.column}
                  </button>{' '}
                  {problem.severity}: {problem.message}
                </li>
              ))}
            </ul>
          </div>
        </div>
        <datalist id={TRANSFORMS_LIST}>
          {transforms.data?.transforms.map((transform) => (
            <option key={transform.name} value={transform.name} />
          ))}
        </datalist>
        <datalist id={CLASSES_LIST}>
          {schemas.data?.schemas.map((schema) => (
            <option key={schema.name} value={schema.name} />
          ))}
        </datalist>
      </Panel>
      {draft || text ? (
        <RuleTester
          name={name}
          source={text}
          onLine={(line) => placeCaret(area.current, line, 1)}
          onDecision={(decision, source) => setTested({ source, lines: firedSteps(decision).map((step) => step.line) })}
        />
      ) : null}
    </>
  );
}
