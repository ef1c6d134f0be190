import { consoleSessionTokenHash } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { sessionLive, type ConsoleAccount, type ConsoleSessionRecord } from './account';
import { consoleErrors } from './console-errors';

/**
 * The account behind a console session token (the cookie), read from the database on every call
 * so a sign-out, revocation or deletion applies at once: 401 CONSOLE_SESSION_REQUIRED without a
 * live session.
 */
export async function consoleCaller(
  deps: Pick<ConsoleDeps, 'sessions' | 'accounts' | 'clock'>,
  token: string | undefined,
): Promise<{ account: ConsoleAccount; session: ConsoleSessionRecord }> {
  if (!token) throw consoleErrors.sessionRequired();
  const session = await deps.sessions.findByTokenHash(consoleSessionTokenHash(token));
  if (!session || !sessionLive(session, deps.clock())) throw consoleErrors.sessionRequired();
  const account = await deps.accounts.findById(session.accountId);
  if (!account) throw consoleErrors.sessionRequired();
  return { account, session };
}
