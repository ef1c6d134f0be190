import { useState, type FormEvent, type ReactNode } from 'react';
import { createApi, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { adminTokenSession, signInWithPassword, type ConsoleSession } from '../auth/session';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { usePageTitle } from '../router';

/** The frame of the signed-out pages: a card in the middle of the page. */
export function SignInFrame({ title = 'BaaS console', children }: { title?: string; children: ReactNode }) {
  return (
    <div className="signin">
      <main className="signin-card" id="main">
        <h1 tabIndex={-1}>{title}</h1>
        {children}
      </main>
    </div>
  );
}

/**
 * Sign in with a console account (email and password: a cookie session), or with the platform
 * admin token (checked with one admin call, then held in this tab's memory only).
 */
export function SignInPage(p: { notice: string | undefined; onSignedIn: (s: ConsoleSession) => void }) {
  usePageTitle('Sign in');
  return (
    <SignInFrame>
      {p.notice && (
        <p className="notice" role="status">
          {p.notice}
        </p>
      )}
      <PasswordForm onSignedIn={p.onSignedIn} />
      <p className="help">
        <a href="#/reset-password">Forgot your password?</a>
      </p>
      <details className="token-signin">
        <summary>Sign in with the platform admin token instead</summary>
        <TokenForm onSignedIn={p.onSignedIn} />
      </details>
    </SignInFrame>
  );
}

function PasswordForm({ onSignedIn }: { onSignedIn: (s: ConsoleSession) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await signInWithPassword(email.trim(), password);
      setPassword('');
      onSignedIn(session);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? new ApiError(401, err.code, 'Wrong email or password.', err.requestId, [])
          : err,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <TextField
        label="Email"
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoComplete="username"
        spellCheck={false}
        required
      />
      <TextField
        label="Password"
        type="password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        autoComplete="current-password"
        required
      />
      <ErrorNotice error={error} />
      <button type="submit" className="primary" disabled={busy || email.trim() === '' || password === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function TokenForm({ onSignedIn }: { onSignedIn: (s: ConsoleSession) => void }) {
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
      onSignedIn(session);
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
    <form onSubmit={(e) => void submit(e)}>
      <TextField
        label="Platform admin token"
        type="password"
        value={token}
        onChange={(e) => setToken(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        required
        hint={
          <>
            <code>PLATFORM_ADMIN_TOKEN</code> of this deployment (<code>.stack/env</code> after{' '}
            <code>npm run up</code>). It stays in this tab&apos;s memory only: reloading the page asks for it
            again.
          </>
        }
      />
      <ErrorNotice error={error} />
      <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in with the token'}
      </button>
    </form>
  );
}
