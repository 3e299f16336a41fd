/**
 * Users (admin only): the users of the server with their role and whether they are disabled; add a
 * user, change a role, disable or enable one, give one a new password (typed or generated, shown once),
 * remove one. The server keeps the last enabled admin and says so when asked to lose it.
 */
import { useState, type FormEvent } from 'react';
import { userRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, StatusBadge, useAction, useLoad } from '../components/common.tsx';
import { useSession, type Role } from '../session.tsx';

const roleNames: Role[] = ['viewer', 'operator', 'admin'];

/** 18 random bytes as base64url: 24 characters, as the server's generated first-admin password. */
function generatedPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

export function Users() {
  const { can, who } = useSession();
  if (!can('admin')) {
    return (
      <Panel title="Users">
        <p className="error-note" role="alert">
          Only an admin manages users: you are signed in as {who.user} with the role {who.role}.
        </p>
      </Panel>
    );
  }
  return <UserAdministration />;
}

function UserAdministration() {
  const { api, who } = useSession();
  const users = useLoad(() => api.call(userRoutes.listUsers), [api]);
  const change = useAction();
  const [resetting, setResetting] = useState('');
  const [newPassword, setNewPassword] = useState('');
  /** A password just set, shown once so the admin can hand it over. */
  const [shown, setShown] = useState<{ user: string; password: string } | null>(null);
  const [draft, setDraft] = useState({ name: '', role: 'viewer' as Role, password: '' });
  const adding = useAction();

  const apply = (action: () => Promise<unknown>) => change.run(action).then((done) => (done ? users.reload() : undefined));

  async function add(event: FormEvent) {
    event.preventDefault();
    const { name, role, password } = draft;
    if (await adding.run(() => api.call(userRoutes.putUser, { params: { name }, body: { password, role } }))) {
      setShown({ user: name, password });
      setDraft({ name: '', role: 'viewer', password: '' });
      users.reload();
    }
  }

  async function resetPassword(event: FormEvent) {
    event.preventDefault();
    const name = resetting;
    const password = newPassword;
    if (await change.run(() => api.call(userRoutes.resetUserPassword, { params: { name }, body: { password } }))) {
      setShown({ user: name, password });
      setResetting('');
      setNewPassword('');
    }
  }

  const taken = users.data?.some((user) => user.name === draft.name) ?? false;

  return (
    <>
      <Panel title="Users">
        <ErrorNote error={users.error} />
        {shown ? (
          <div className="notice" role="status" aria-label="Password shown once">
            The password of {shown.user} is now <code className="secret">{shown.password}</code> — hand it over now: it is stored hashed only and not shown
            again.{' '}
            <button type="button" className="link" onClick={() => setShown(null)}>
              Hide
            </button>
          </div>
        ) : null}
        <table className="grid" aria-label="Users">
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Status</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.map((user) => (
              <tr key={user.name} className={user.disabled ? 'muted-row' : ''}>
                <td>
                  {user.name}
                  {user.name === who.user ? <span className="muted"> (you)</span> : null}
                </td>
                <td>
                  <select
                    value={user.role}
                    aria-label={`Role of ${user.name}`}
                    disabled={change.busy}
                    onChange={(e) =>
                      void apply(() => api.call(userRoutes.setUserRole, { params: { name: user.name }, body: { role: e.target.value as Role } }))
                    }
                  >
                    {roleNames.map((role) => (
                      <option key={role}>{role}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <StatusBadge status={user.disabled ? 'disabled' : 'enabled'} />
                </td>
                <td>
                  <div className="button-row">
                    {user.disabled ? (
                      <button
                        type="button"
                        disabled={change.busy}
                        onClick={() => void apply(() => api.call(userRoutes.enableUser, { params: { name: user.name } }))}
                      >
                        Enable {user.name}
                      </button>
                    ) : (
                      <button
                        type="button"
                        disabled={change.busy}
                        onClick={() =>
                          window.confirm(
                            user.name === who.user
                              ? `Disable your own user ${user.name}? You will be signed out at once.`
                              : `Disable ${user.name}? Its requests are refused from now on, until it is enabled again.`,
                          ) && void apply(() => api.call(userRoutes.disableUser, { params: { name: user.name } }))
                        }
                      >
                        Disable {user.name}
                      </button>
                    )}
                    <button type="button" onClick={() => (setResetting(user.name), setNewPassword(''), change.clear())}>
                      Reset password of {user.name}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={change.busy}
                      onClick={() =>
                        window.confirm(`Remove the user ${user.name}?`) && void apply(() => api.call(userRoutes.deleteUser, { params: { name: user.name } }))
                      }
                    >
                      Remove {user.name}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {resetting ? (
          <form className="inline-form" aria-label="Reset password" onSubmit={(event) => void resetPassword(event)}>
            <label>
              New password of {resetting}
              <input value={newPassword} onChange={(e) => setNewPassword(e.target.value)} aria-label="New password" autoComplete="new-password" />
            </label>
            <button type="button" onClick={() => setNewPassword(generatedPassword())}>
              Generate
            </button>
            <button type="submit" className="primary" disabled={change.busy || newPassword === ''}>
              Set password
            </button>
            <button type="button" className="link" onClick={() => setResetting('')}>
              Cancel
            </button>
          </form>
        ) : null}
        <ErrorNote error={change.error} />
        <p className="muted">
          A disabled user keeps its role and password but every request it sends is refused until it is enabled again. The last enabled admin cannot be
          disabled, demoted or removed. From the server's machine: <code>conveyor users reset-password NAME</code>.
        </p>
      </Panel>
      <Panel title="Add a user">
        <form className="filters" aria-label="Add user" onSubmit={(event) => void add(event)}>
          <label>
            Name
            <input value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required aria-label="User name" aria-invalid={taken} />
          </label>
          <label>
            Role
            <select value={draft.role} onChange={(e) => setDraft({ ...draft, role: e.target.value as Role })} aria-label="Role">
              {roleNames.map((role) => (
                <option key={role}>{role}</option>
              ))}
            </select>
          </label>
          <label>
            Password
            <input
              value={draft.password}
              onChange={(e) => setDraft({ ...draft, password: e.target.value })}
              required
              aria-label="Password"
              autoComplete="new-password"
            />
          </label>
          <button type="button" onClick={() => setDraft({ ...draft, password: generatedPassword() })}>
            Generate password
          </button>
          <button type="submit" className="primary" disabled={adding.busy || !draft.name || !draft.password || taken}>
            Add user
          </button>
        </form>
        {taken ? <span className="error-text">A user named {draft.name} exists: use Reset password to change its password.</span> : null}
        <ErrorNote error={adding.error} />
      </Panel>
    </>
  );
}
