/** The decisions the routing engines logged for one rule class (GET /rules/log), newest first. */
import { ruleRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, useLoad } from '../components/common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

export function RuleLog({ name }: { name: string }) {
  const { api } = useSession();
  const log = useLoad(() => api.call(ruleRoutes.ruleLog, { query: { rule: name, limit: 50 } }), [api, name]);
  return (
    <Panel
      title="Decisions of the routing engines"
      actions={
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      }
    >
      <ErrorNote error={log.error} />
      <table className="grid log" aria-label="Logged decisions">
        <thead>
          <tr>
            <th>Time (UTC)</th>
            <th>Router</th>
            <th>Session</th>
            <th>Decision</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.entries.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                No routing engine has used this rule yet.
              </td>
            </tr>
          ) : null}
          {log.data?.entries.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">{entry.time_logged}</td>
              <td>{entry.config_name}</td>
              <td>{entry.session_id ? <a href={href('trace', entry.session_id)}>{entry.session_id}</a> : ''}</td>
              <td className="log-text">{entry.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
