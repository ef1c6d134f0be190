import { useState, type FormEvent, type ReactNode } from 'react';
import { createApi, ok } from '../api/client';
import { ApiError } from '../api/errors';
import { adminTokenSession, signInWithPassword, type ConsoleSession } from '../auth/session';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { useAction } from '../lib/use-action';
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

/** A 401 refusal told in the words of the form that met it; any other error as it is. */
const refusedAs =
  (message: string) =>
  (err: unknown): unknown =>
    err instanceof ApiError && err.status === 401
      ? new ApiError(401, err.code, message, err.requestId, [])
      : err;

function PasswordForm({ onSignedIn }: { onSignedIn: (s: ConsoleSession) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      const session = await signInWithPassword(email.trim(), password);
      setPassword('');
      onSignedIn(session);
    }, refusedAs('Wrong email or password.'));
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
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      const session = adminTokenSession(token.trim());
      try {
        await ok(
          createApi(session, () => undefined).GET('/api/admin/projects', {
            params: { query: { limit: '1' } },
          }),
        );
        setToken('');
        onSignedIn(session);
      } catch (err) {
        await session.end();
        throw err;
      }
    }, refusedAs('The gateway refused this token.'));
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
