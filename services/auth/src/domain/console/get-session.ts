import type { ConsoleDeps } from './deps';
import { consoleCaller } from './authenticate';
import { sessionView, type SessionView } from './session-view';

/** GET /api/console/session: the live session of the cookie, as the console restores it on load. */
export async function getConsoleSession(deps: ConsoleDeps, token: string | undefined): Promise<SessionView> {
  const { account, session } = await consoleCaller(deps, token);
  return sessionView(deps, account, session, token ?? '');
}
