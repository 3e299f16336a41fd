/**
 * The change plan of an edited definition, shown before it is applied (IoP 4's plan / apply /
 * rollback, docs/api.md "Production changes"): each operation with its risk, what validation found,
 * then Apply — which sends the plan's source fingerprint, so a definition changed meanwhile is refused
 * rather than overwritten — and Roll back, which restores the definition the last apply replaced.
 */
import { useState } from 'react';
import { definitionRoutes, type ExportJson, type ReplyOf } from '../../../src/client/routes.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, useAction } from './common.tsx';

type Plan = ReplyOf<typeof definitionRoutes.plan>;
type Applied = ReplyOf<typeof definitionRoutes.apply>;

function shown(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function PlanReview({ draft, production, onApplied }: { draft: ExportJson; production: string; onApplied(): void }) {
  const { api, can } = useSession();
  const [plan, setPlan] = useState<Plan | null>(null);
  const [allowDestructive, setAllowDestructive] = useState(false);
  const [result, setResult] = useState<Applied | null>(null);
  const action = useAction();

  const review = () =>
    action.run(async () => {
      setResult(null);
      setAllowDestructive(false);
      setPlan(await api.call(definitionRoutes.plan, { body: { definition: draft } }));
    });
  const apply = () =>
    plan &&
    action.run(async () => {
      const applied = await api.call(definitionRoutes.apply, {
        body: { definition: draft, source_fingerprint: plan.source_fingerprint, ...(allowDestructive ? { allow_destructive: true } : {}) },
      });
      setResult(applied);
      setPlan(null);
      onApplied();
    });
  const rollback = () =>
    action.run(async () => {
      setPlan(null);
      setResult(await api.call(definitionRoutes.rollback, { body: { production } }));
      onApplied();
    });

  const destructive = plan?.operations.filter((operation) => operation.risk === 'destructive') ?? [];
  return (
    <section className="plan-review" aria-label="Change plan">
      <div className="button-row">
        <button type="button" disabled={action.busy} onClick={() => void review()}>
          Review plan
        </button>
        {can('admin') ? (
          <button type="button" className="link" disabled={action.busy} onClick={() => void rollback()}>
            Roll back last apply
          </button>
        ) : null}
      </div>
      <ErrorNote error={action.error} />
      {plan ? (
        <div>
          <p>
            Plan <code>{plan.id.slice(0, 12)}</code> for {plan.production}:{' '}
            {plan.operations.length === 0 ? 'no changes' : `${plan.operations.length} operation(s)`}
            {destructive.length > 0 ? <span className="error-text"> — {destructive.length} destructive</span> : null}
          </p>
          {plan.operations.length > 0 ? (
            <table className="grid" aria-label="Plan operations">
              <thead>
                <tr>
                  <th>Operation</th>
                  <th>Path</th>
                  <th>Before</th>
                  <th>After</th>
                  <th>Risk</th>
                </tr>
              </thead>
              <tbody>
                {plan.operations.map((operation) => (
                  <tr key={operation.id} className={operation.risk === 'destructive' ? 'destructive' : undefined}>
                    <td>{operation.op_type}</td>
                    <td>{operation.path}</td>
                    <td className="muted">{shown(operation.before)}</td>
                    <td>{shown(operation.after)}</td>
                    <td title={operation.reason}>{operation.risk}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {plan.issues.length > 0 ? (
            <ul aria-label="Validation issues">
              {plan.issues.map((issue) => (
                <li key={`${issue.path}:${issue.message}`} className={issue.severity === 'error' ? 'error-text' : 'muted'}>
                  {issue.severity}: {issue.path}: {issue.message} {issue.suggestion ?? ''}
                </li>
              ))}
            </ul>
          ) : null}
          {can('admin') && plan.has_changes ? (
            <div className="button-row">
              {destructive.length > 0 ? (
                <label className="inline">
                  <input type="checkbox" checked={allowDestructive} onChange={(e) => setAllowDestructive(e.target.checked)} /> Allow the destructive operations
                </label>
              ) : null}
              <button type="button" className="primary" disabled={action.busy || (destructive.length > 0 && !allowDestructive)} onClick={() => void apply()}>
                Apply plan
              </button>
              <button type="button" onClick={() => setPlan(null)}>
                Cancel
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      {result ? (
        <div className="notice" role="status">
          Applied plan <code>{result.plan_id.slice(0, 12)}</code> to {result.production}: {result.applied} operation(s).{' '}
          {result.updated_runtime
            ? 'The running production was updated.'
            : result.update_error
              ? `Updating the running production failed: ${result.update_error}`
              : 'It applies when the production starts.'}
        </div>
      ) : null}
    </section>
  );
}
