/** The routing rule classes of the namespace: open, test or delete one, and start a new one by name. */
import { useState, type FormEvent } from 'react';
import { ruleRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, formatTime, useAction, useLoad } from '../components/common.tsx';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';

export function RuleList() {
  const { api, can } = useSession();
  const rules = useLoad(() => api.call(ruleRoutes.listRules), [api]);
  const remove = useAction();
  const [name, setName] = useState('');
  const taken = rules.data?.rules.some((rule) => rule.name === name) ?? false;
  const nameError =
    name && !/^[A-Za-z%][\w.%]*$/.test(name)
      ? 'A rule name is a class name: letters, digits, dots (e.g. Demo.RoutingRule).'
      : taken
        ? `${name} exists: open it from the list.`
        : '';

  function create(event: FormEvent) {
    event.preventDefault();
    navigate(href('rules', 'edit', name));
  }

  return (
    <>
      <Panel title="Routing rules">
        <ErrorNote error={rules.error || remove.error} />
        <table className="grid" aria-label="Rules">
          <thead>
            <tr>
              <th>Name</th>
              <th>Context</th>
              <th>Rule sets</th>
              <th>Version</th>
              <th>Saved (UTC)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.data?.rules.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  No rule yet.
                </td>
              </tr>
            ) : null}
            {rules.data?.rules.map((rule) => (
              <tr key={rule.name}>
                <td>
                  <a href={href('rules', 'edit', rule.name)}>{rule.name}</a>
                </td>
                <td>{rule.context}</td>
                <td>{rule.ruleSets}</td>
                <td>{rule.version}</td>
                <td>{formatTime(rule.updatedAt, false)}</td>
                <td className="row-actions">
                  <a href={href('rules', 'edit', rule.name)}>{can('operator') ? 'Edit' : 'View'}</a>
                  <a href={href('rules', 'test', rule.name)}>Test</a>
                  {can('operator') ? (
                    <button
                      type="button"
                      className="link danger"
                      aria-label={`Delete ${rule.name}`}
                      disabled={remove.busy}
                      onClick={() =>
                        window.confirm(`Delete the rule ${rule.name} and its history? A routing engine that names it stops routing.`) &&
                        void remove.run(async () => {
                          await api.call(ruleRoutes.deleteRule, { params: { name: rule.name } });
                          rules.reload();
                        })
                      }
                    >
                      Delete
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      {can('operator') ? (
        <Panel title="New rule">
          <form className="filters" onSubmit={create} aria-label="New rule">
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Demo.RoutingRule" aria-invalid={nameError !== ''} required />
            </label>
            <button type="submit" className="primary" disabled={!name || nameError !== ''}>
              Create
            </button>
          </form>
          {nameError ? <div className="error-note">{nameError}</div> : null}
        </Panel>
      ) : null}
    </>
  );
}
