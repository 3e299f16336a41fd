/** Sign-in with a Conveyor user (HTTP Basic, checked against GET /whoami). */
import { useState, type FormEvent } from 'react';
import { errorMessage, failedStatus } from '../connection.ts';
import { signIn, type EndedSession } from '../session.tsx';

export function SignIn({ onSignedIn, ended }: { onSignedIn: (session: Awaited<ReturnType<typeof signIn>>) => void; ended: EndedSession | null }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      onSignedIn(await signIn({ user, password }));
    } catch (failure) {
      setError(failedStatus(failure) === 401 ? 'Wrong user name or password.' : errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <form onSubmit={(event) => void submit(event)} aria-label="Sign in">
        <h1>Conveyor</h1>
        <p className="muted">Management portal</p>
        {ended ? (
          <div className="notice" role="status" aria-label="Session ended">
            Your session ended: {ended.reason}. Sign in again to return to {ended.route.replace(/^#\//, '') || 'productions'}.
          </div>
        ) : null}
        <label>
          User
          <input name="user" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required autoFocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {error ? (
          <div className="error-note" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" className="primary" disabled={busy || user === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
