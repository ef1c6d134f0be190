import { useCallback, useMemo, useState } from 'react';
import { createApi } from './api/client';
import { ApiContext, type ConsoleContext } from './api/context';
import type { ConsoleSession } from './auth/session';
import { SignInPage } from './pages/SignInPage';
import { Shell } from './Shell';

/**
 * Signed out: the sign-in page, whatever the address (which is kept, so a reload of a deep link
 * comes back there after signing in). Signed in: the shell and its pages, with the session's API.
 */
export function App() {
  const [session, setSession] = useState<ConsoleSession | undefined>();
  const [notice, setNotice] = useState<string | undefined>();

  const signOut = useCallback(
    (why?: string) => {
      void session?.end();
      setSession(undefined);
      setNotice(why);
    },
    [session],
  );

  const context = useMemo<ConsoleContext | undefined>(() => {
    if (!session) return undefined;
    const api = createApi(session, () =>
      signOut('The gateway no longer accepts these credentials: sign in again.'),
    );
    return { api, session, signOut: () => signOut() };
  }, [session, signOut]);

  if (!context)
    return (
      <SignInPage
        notice={notice}
        onSignedIn={(s) => {
          setNotice(undefined);
          setSession(s);
        }}
      />
    );
  return (
    <ApiContext.Provider value={context}>
      <Shell />
    </ApiContext.Provider>
  );
}
