import { useCallback, useEffect, useMemo, useState } from 'react';
import { createApi } from './api/client';
import { ApiContext, type ConsoleContext } from './api/context';
import { restoreSession, type ConsoleSession } from './auth/session';
import { describe } from './components/ErrorNotice';
import { AcceptInvitationPage } from './pages/AcceptInvitationPage';
import { ResetPasswordPage } from './pages/ResetPasswordPage';
import { SignInFrame, SignInPage } from './pages/SignInPage';
import { leaveHashRoute, useHashRoute } from './router';
import { Shell } from './Shell';

type State =
  { phase: 'restoring' } | { phase: 'out'; notice?: string } | { phase: 'in'; session: ConsoleSession };

/**
 * On load, the session the browser's cookie still holds is restored (GET /api/console/session).
 * Signed out: the sign-in page, whatever the address (which is kept, so a reload of a deep link
 * comes back there after signing in). Signed in: the shell and its pages, with the session's API.
 * The pages a mail links to (`#/accept-invitation`, `#/reset-password`) come first, signed in or not.
 */
export function App() {
  const [state, setState] = useState<State>({ phase: 'restoring' });
  const hash = useHashRoute();

  useEffect(() => {
    let live = true;
    restoreSession().then(
      (session) => {
        if (live)
          setState((s) =>
            s.phase !== 'restoring' ? s : session ? { phase: 'in', session } : { phase: 'out' },
          );
      },
      (e: unknown) => {
        if (live)
          setState((s) =>
            s.phase !== 'restoring'
              ? s
              : { phase: 'out', notice: `Could not check for a session: ${describe(e)}` },
          );
      },
    );
    return () => {
      live = false;
    };
  }, []);

  const session = state.phase === 'in' ? state.session : undefined;
  const signOut = useCallback(
    (notice?: string) => {
      void session?.end();
      setState({ phase: 'out', notice });
    },
    [session],
  );
  const signedIn = useCallback((s: ConsoleSession) => setState({ phase: 'in', session: s }), []);

  const context = useMemo<ConsoleContext | undefined>(() => {
    if (!session) return undefined;
    const api = createApi(session, () =>
      signOut('The gateway no longer accepts this session: sign in again.'),
    );
    return { api, session, signOut: () => signOut() };
  }, [session, signOut]);

  if (hash.name === 'accept-invitation')
    return (
      <AcceptInvitationPage
        token={hash.query.get('token') ?? ''}
        onSignedIn={(s) => {
          leaveHashRoute();
          signedIn(s);
        }}
        onLeave={leaveHashRoute}
      />
    );
  if (hash.name === 'reset-password')
    return (
      <ResetPasswordPage
        token={hash.query.get('token') ?? ''}
        onDone={(notice) => {
          leaveHashRoute();
          // A reset ends every session of the account; sign in with the new password.
          if (notice) setState({ phase: 'out', notice });
        }}
      />
    );
  if (state.phase === 'restoring')
    return (
      <SignInFrame>
        <p role="status">Loading…</p>
      </SignInFrame>
    );
  if (!context)
    return <SignInPage notice={state.phase === 'out' ? state.notice : undefined} onSignedIn={signedIn} />;
  return (
    <ApiContext.Provider value={context}>
      <Shell />
    </ApiContext.Provider>
  );
}
