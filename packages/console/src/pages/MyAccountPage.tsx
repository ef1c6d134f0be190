import { useState, type FormEvent } from 'react';
import { useConsole } from '../api/context';
import { ok } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { NewPassword } from '../components/NewPassword';
import { newPasswordReady } from '../lib/password';
import { useAction } from '../lib/use-action';
import { Link, usePageTitle } from '../router';

/** The signed-in account: its projects and roles, and a new password. */
export function MyAccountPage() {
  usePageTitle('Your account');
  const { api, session } = useConsole();
  const account = session.account;
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, run } = useAction();
  const [status, setStatus] = useState('');
  if (!account) return null;
  const roles = [...session.access.roles.entries()];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (current === '' || !newPasswordReady(password, repeat)) return;
    setStatus('');
    await run(async () => {
      await ok(
        api.POST('/api/console/password', {
          params: { header: session.csrfHeader() },
          body: { currentPassword: current, newPassword: password },
        }),
      );
      setCurrent('');
      setPassword('');
      setRepeat('');
      setStatus('Password changed. Your other sessions were ended; this one goes on.');
    });
  };

  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Your account</h1>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{account.email}</dd>
        <dt>Platform admin</dt>
        <dd>{account.platformAdmin ? 'yes: every project, every account' : 'no'}</dd>
        <dt>Projects</dt>
        <dd>
          {roles.length === 0 ? (
            <span className="muted">{account.platformAdmin ? 'all of them' : 'none yet'}</span>
          ) : (
            <ul className="plain-list">
              {roles.map(([projectId, role]) => (
                <li key={projectId}>
                  <Link to={`/projects/${projectId}`}>
                    {session.projectNames.get(projectId) ?? projectId}
                  </Link>
                  : {role}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <form onSubmit={(e) => void submit(e)} className="form">
        <fieldset>
          <legend>Change your password</legend>
          <TextField
            label="Current password"
            type="password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            autoComplete="current-password"
            required
          />
          <NewPassword
            password={password}
            repeat={repeat}
            onChange={(a, b) => {
              setPassword(a);
              setRepeat(b);
            }}
          />
          <ErrorNotice error={error} />
          <p role="status" className="status">
            {status}
          </p>
          <button
            type="submit"
            className="primary"
            disabled={busy || current === '' || !newPasswordReady(password, repeat)}
          >
            {busy ? 'Saving…' : 'Change the password'}
          </button>
        </fieldset>
      </form>
    </main>
  );
}
