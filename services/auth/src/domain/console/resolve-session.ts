import type { ConsoleSessionResolution } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { sessionLive } from './account';
import { consoleErrors } from './console-errors';

/**
 * For the gateway (POST /internal/console/sessions/resolve): who a session cookie's digest
 * belongs to and its roles. 401 CONSOLE_SESSION_INVALID when unknown, expired or revoked. The
 * gateway caches the answer briefly and drops it on the account's invalidation message.
 */
export async function resolveConsoleSession(
  deps: Pick<ConsoleDeps, 'sessions' | 'accounts' | 'members' | 'clock'>,
  tokenHash: string,
): Promise<ConsoleSessionResolution> {
  const session = await deps.sessions.findByTokenHash(tokenHash);
  if (!session || !sessionLive(session, deps.clock())) throw consoleErrors.sessionInvalid();
  const account = await deps.accounts.findById(session.accountId);
  if (!account) throw consoleErrors.sessionInvalid();
  const memberships = await deps.members.ofAccount(account.id);
  return {
    sessionId: session.id,
    accountId: account.id,
    email: account.email,
    platformAdmin: account.platformAdmin,
    memberships: memberships.map((m) => ({ projectId: m.projectId, role: m.role })),
    expiresAt: session.expiresAt.toISOString(),
  };
}
