import { useId, useState, type FormEvent } from 'react';
import { createApi, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { adminTokenSession, type ConsoleSession } from '../auth/session';
import { ErrorNotice } from '../components/ErrorNotice';
import { usePageTitle } from '../router';

/**
 * Sign in with the platform admin token. The token is checked with one admin call (the first
 * page of projects) and then held in memory only.
 */
export function SignInPage(p: { notice: string | undefined; onSignedIn: (s: ConsoleSession) => void }) {
  usePageTitle('Sign in');
  const id = useId();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const session = adminTokenSession(token.trim());
    try {
      await ok(
        createApi(session, () => undefined).GET('/api/admin/projects', { params: { query: { limit: '1' } } }),
      );
      setToken('');
      p.onSignedIn(session);
    } catch (err) {
      await session.end();
      setError(
        err instanceof ApiError && err.status === 401
          ? new ApiError(401, err.code, 'The gateway refused this token.', err.requestId, [])
          : err,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="signin">
      <main className="signin-card">
        <h1 tabIndex={-1}>BaaS console</h1>
        {p.notice && (
          <p className="notice" role="status">
            {p.notice}
          </p>
        )}
        <form onSubmit={(e) => void submit(e)}>
          <div className="field">
            <label htmlFor={`${id}-token`}>Platform admin token</label>
            <input
              id={`${id}-token`}
              type="password"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              required
              aria-describedby={`${id}-help`}
            />
            <p className="help" id={`${id}-help`}>
              <code>PLATFORM_ADMIN_TOKEN</code> of this deployment (<code>.stack/env</code> after{' '}
              <code>npm run up</code>). It stays in this tab&apos;s memory only: reloading the page asks for
              it again.
            </p>
          </div>
          <ErrorNotice error={error} />
          <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </main>
    </div>
  );
}
