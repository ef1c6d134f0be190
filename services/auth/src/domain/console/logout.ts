import { consoleSessionTokenHash } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { sessionLive } from './account';

/**
 * Ends the session of the token, if it is live (signing out twice is no error); gateways drop
 * what they cached for the account at once.
 */
export async function consoleLogout(deps: ConsoleDeps, token: string): Promise<void> {
  const session = await deps.sessions.findByTokenHash(consoleSessionTokenHash(token));
  const now = deps.clock();
  if (!session || !sessionLive(session, now)) return;
  if (await deps.sessions.revoke(session.id, now)) deps.invalidator.consoleAccountChanged(session.accountId);
}
