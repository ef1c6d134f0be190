import { useState, type FormEvent } from 'react';
import { ok } from '../api/client';
import type { Invitation } from '../api/types';
import { ROLE_LABELS } from '../auth/roles';
import { acceptInvitation, publicClient, type ConsoleSession } from '../auth/session';
import { ErrorNotice } from '../components/ErrorNotice';
import { NewPassword } from '../components/NewPassword';
import { formatDate } from '../lib/format';
import { newPasswordReady } from '../lib/password';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import { SignInFrame } from './SignInPage';

/**
 * `#/accept-invitation?token=…`, the link of an invitation mail: what the invitation is for, then
 * a password when the address has no account yet, then signed in on the project.
 */
export function AcceptInvitationPage(p: {
  token: string;
  onSignedIn: (s: ConsoleSession) => void;
  onLeave: () => void;
}) {
  usePageTitle('Accept an invitation');
  const inspected = useLoad(
    async () =>
      p.token === ''
        ? undefined
        : (await ok(publicClient().POST('/api/console/invitations/inspect', { body: { token: p.token } })))
            .data,
    [p.token],
  );
  return (
    <SignInFrame title="Join a project">
      {p.token === '' && (
        <p className="notice notice-error" role="alert">
          This link has no invitation token: open the link of the invitation mail as it is.
        </p>
      )}
      {inspected.loading && !inspected.data && <p role="status">Checking the invitation…</p>}
      {inspected.error !== undefined && (
        <>
          <ErrorNotice error={inspected.error} />
          <p>An invitation can be used once, within 7 days. Ask a project owner to invite you again.</p>
        </>
      )}
      {inspected.data && <Accept token={p.token} invitation={inspected.data} onSignedIn={p.onSignedIn} />}
      <p className="help">
        <button type="button" className="link-text" onClick={p.onLeave}>
          Back to the console
        </button>
      </p>
    </SignInFrame>
  );
}

function Accept({
  token,
  invitation,
  onSignedIn,
}: {
  token: string;
  invitation: Invitation;
  onSignedIn: (s: ConsoleSession) => void;
}) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, run } = useAction();
  const needsPassword = !invitation.accountExists;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (needsPassword && !newPasswordReady(password, repeat)) return;
    await run(async () => onSignedIn(await acceptInvitation(token, needsPassword ? password : undefined)));
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <p>
        <strong>{invitation.email}</strong> is invited to the project{' '}
        <strong>{invitation.projectName}</strong> as <strong>{invitation.role}</strong>.
      </p>
      <p className="help">
        {ROLE_LABELS[invitation.role]}. The invitation expires {formatDate(invitation.expiresAt)}.
      </p>
      {needsPassword ? (
        <>
          <p>Choose a password for your new console account.</p>
          <NewPassword
            password={password}
            repeat={repeat}
            onChange={(a, b) => {
              setPassword(a);
              setRepeat(b);
            }}
          />
        </>
      ) : (
        <p>This address already has a console account: accepting signs you in with it.</p>
      )}
      <ErrorNotice error={error} />
      <button
        type="submit"
        className="primary"
        disabled={busy || (needsPassword && !newPasswordReady(password, repeat))}
      >
        {busy ? 'Joining…' : needsPassword ? 'Create the account and join' : `Join ${invitation.projectName}`}
      </button>
    </form>
  );
}
