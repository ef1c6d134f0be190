import { useState, type FormEvent } from 'react';
import { ok } from '../api/client';
import { publicClient } from '../auth/session';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { NewPassword } from '../components/NewPassword';
import { newPasswordReady } from '../lib/password';
import { useAction } from '../lib/use-action';
import { usePageTitle } from '../router';
import { SignInFrame } from './SignInPage';

/**
 * `#/reset-password`: without a token, "forgot password" (a mail with a link is sent when an
 * account has the address; the answer is the same either way); with the mail's token, a new
 * password (every session of the account ends).
 */
export function ResetPasswordPage(p: { token: string; onDone: (notice?: string) => void }) {
  usePageTitle(p.token ? 'Choose a new password' : 'Forgot your password');
  return (
    <SignInFrame title={p.token ? 'Choose a new password' : 'Forgot your password?'}>
      {p.token ? <NewPasswordForm token={p.token} onDone={p.onDone} /> : <RequestForm />}
      <p className="help">
        <button type="button" className="link-text" onClick={() => p.onDone()}>
          Back to the console
        </button>
      </p>
    </SignInFrame>
  );
}

function RequestForm() {
  const [email, setEmail] = useState('');
  const { busy, error, run } = useAction();
  const [sent, setSent] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSent('');
    await run(async () => {
      await ok(publicClient().POST('/api/console/password-reset/request', { body: { email: email.trim() } }));
      setSent(
        `If ${email.trim()} has a console account, a mail with a link to choose a new password is on its way. The link works for an hour.`,
      );
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <TextField
        label="Email of your console account"
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoComplete="username"
        spellCheck={false}
        required
      />
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {sent}
      </p>
      <button type="submit" className="primary" disabled={busy || email.trim() === ''}>
        {busy ? 'Sending…' : 'Send me a link'}
      </button>
    </form>
  );
}

function NewPasswordForm({ token, onDone }: { token: string; onDone: (notice?: string) => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!newPasswordReady(password, repeat)) return;
    await run(async () => {
      await ok(
        publicClient().POST('/api/console/password-reset', { body: { token, newPassword: password } }),
      );
      onDone('Your password was changed and your other sessions ended: sign in with the new password.');
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <NewPassword
        password={password}
        repeat={repeat}
        onChange={(a, b) => {
          setPassword(a);
          setRepeat(b);
        }}
      />
      <ErrorNotice error={error} />
      <button type="submit" className="primary" disabled={busy || !newPasswordReady(password, repeat)}>
        {busy ? 'Saving…' : 'Set the new password'}
      </button>
    </form>
  );
}
