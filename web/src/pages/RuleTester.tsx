/**
 * Which rule fires for a message, and why: a message class, a JSON body, the item it comes from and
 * optionally a time (it decides which rule set is in effect) go to POST /rules/test; the decision
 * shows the rule set, the rules that fired, every rule's step of the rule log and the resulting
 * actions. In the editor it tests the text being edited, saved or not; on its own page the stored
 * rule, with the decisions the routing engines logged for it.
 */
import { useState } from 'react';
import { dtlRoutes, ruleRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, useAction, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { RuleLog } from '../rules/RuleLog.tsx';
import { useSession } from '../session.tsx';

type Decision = ruleRoutes.RuleDecisionJson;

function readJson(text: string): { json: unknown; error: string } {
  if (text.trim() === '') return { json: {}, error: '' };
  try {
    return { json: JSON.parse(text) as unknown, error: '' };
  } catch (error) {
    return { json: null, error: `Not valid JSON: ${(error as Error).message}` };
  }
}

/** The steps where a rule fired (a true `when` or its `otherwise`). */
export const firedSteps = (decision: Decision) => decision.steps.filter((step) => step.outcome === 'when' || step.outcome === 'otherwise');

function DecisionView({ decision, onLine }: { decision: Decision; onLine?: (line: number) => void }) {
  const firing = firedSteps(decision);
  return (
    <div className="test-result" role="region" aria-label="Rule decision">
      {decision.error ? <div className="error-note">{decision.error}</div> : null}
      <dl className="rule-summary">
        <dt>Rule set</dt>
        <dd>
          {decision.ruleSet ? (
            <>
              {decision.ruleSet.name || '(unnamed)'}{' '}
              <span className="muted">
                {decision.ruleSet.effectiveBegin || '…'} – {decision.ruleSet.effectiveEnd || '…'}
              </span>
            </>
          ) : (
            'none in effect'
          )}
        </dd>
        <dt>Fired</dt>
        <dd data-testid="fired">{firing.length ? firing.map((step) => step.rule).join(', ') : 'no rule fired'}</dd>
        <dt>Reason</dt>
        <dd>
          <code>{decision.reason || '—'}</code>
        </dd>
        <dt>Return value</dt>
        <dd>
          <code>{decision.returnValue || '—'}</code>
        </dd>
      </dl>
      <h3>Actions</h3>
      {decision.actions.length === 0 ? <p className="muted">None: the message is not routed.</p> : null}
      <ol className="rule-decided" aria-label="Resulting actions">
        {decision.actions.map((action, index) => (
          <li key={index}>
            {action.type === 'send' ? (
              <>
                send to <strong>{action.target}</strong>
                {action.transforms.length ? <> through {action.transforms.join(', ')}</> : null}
              </>
            ) : (
              <strong>delete</strong>
            )}{' '}
            <span className="muted">({action.reason})</span>
          </li>
        ))}
      </ol>
      {decision.document !== undefined ? (
        <>
          <h3>Message after the assigns</h3>
          <pre className="code" aria-label="Assigned message">
            {JSON.stringify(decision.document, null, 2)}
          </pre>
        </>
      ) : null}
      {decision.traces.length ? (
        <>
          <h3>Traces</h3>
          <pre className="code" aria-label="Traces">
            {decision.traces.join('\n')}
          </pre>
        </>
      ) : null}
      <h3>Rule log</h3>
      <table className="grid" aria-label="Rule log">
        <thead>
          <tr>
            <th>Rule</th>
            <th>Outcome</th>
            <th>Why</th>
            <th>Line</th>
          </tr>
        </thead>
        <tbody>
          {decision.steps.map((step, index) => (
            <tr key={index} className={step.outcome === 'when' || step.outcome === 'otherwise' ? 'rule-step-fired' : ''}>
              <td>{step.rule}</td>
              <td>{step.outcome}</td>
              <td>{step.detail}</td>
              <td>
                {onLine && step.line > 0 ? (
                  <button type="button" className="link" onClick={() => onLine(step.line)} aria-label={`Go to line ${step.line}`}>
                    {step.line}
                  </button>
                ) : (
                  step.line || ''
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface RuleTesterProps {
  name: string;
  /** The text being edited, tested instead of the stored rule. */
  source?: string;
  /** Go to a line of the text (the editor's caret). */
  onLine?: (line: number) => void;
  /** Told each decision with the text it was made on, so the editor can mark the rules that fired. */
  onDecision?: (decision: Decision, source: string) => void;
}

export function RuleTester({ name, source, onLine, onDecision }: RuleTesterProps) {
  const { api } = useSession();
  const schemas = useLoad(() => api.call(dtlRoutes.listSchemas), [api]);
  const [classname, setClassname] = useState('');
  const [from, setFrom] = useState('');
  const [at, setAt] = useState('');
  const [body, setBody] = useState('{}');
  const [decision, setDecision] = useState<Decision | null>(null);
  const run = useAction();
  const read = readJson(body);
  const rule = source !== undefined ? { source } : { name };

  return (
    <Panel title={`Test ${name}`}>
      <p className="muted">
        Which rule fires for this message, and why. {source !== undefined ? 'The rule being edited is tested, saved or not.' : 'The stored rule is tested.'}
      </p>
      <div className="test-form">
        <label>
          Message class
          <input value={classname} onChange={(e) => setClassname(e.target.value)} list="rule-test-classes" placeholder="msg.Order" aria-label="Message class" />
        </label>
        <label>
          Source
          <input value={from} onChange={(e) => setFrom(e.target.value)} placeholder="The item it comes from" aria-label="Source" />
        </label>
        <label>
          At (rule set in effect)
          <input value={at} onChange={(e) => setAt(e.target.value)} placeholder="now, or 2026-05-01T10:00:00" aria-label="At" />
        </label>
        <label className="wide">
          Body (JSON)
          <textarea
            className="payload"
            rows={6}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            aria-label="Message body"
            aria-invalid={read.error !== ''}
            spellCheck={false}
          />
        </label>
      </div>
      <datalist id="rule-test-classes">
        {schemas.data?.schemas.map((schema) => (
          <option key={schema.name} value={schema.name} />
        ))}
      </datalist>
      {read.error ? <div className="error-note">{read.error}</div> : null}
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={read.error !== '' || classname.trim() === '' || run.busy}
          onClick={() =>
            void run.run(async () => {
              const made = await api.call(ruleRoutes.testRule, {
                body: {
                  ...rule,
                  classname: classname.trim(),
                  json: read.json,
                  ...(from.trim() ? { from: from.trim() } : {}),
                  ...(at.trim() ? { at: at.trim() } : {}),
                },
              });
              setDecision(made);
              if (source !== undefined) onDecision?.(made, source);
            })
          }
        >
          Test
        </button>
        {source === undefined ? <a href={href('rules', 'edit', name)}>Edit {name}</a> : null}
      </div>
      <ErrorNote error={run.error} />
      {decision ? <DecisionView decision={decision} {...(onLine ? { onLine } : {})} /> : null}
    </Panel>
  );
}

/** `#/rules/test/<name>`: the stored rule tested, and what the routing engines decided with it. */
export function RuleTestPage({ name }: { name: string }) {
  return (
    <>
      <RuleTester name={name} />
      <RuleLog name={name} />
    </>
  );
}
