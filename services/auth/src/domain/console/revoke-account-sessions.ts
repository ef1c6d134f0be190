import type { ConsoleDeps } from './deps';
import { consoleErrors } from './console-errors';

/** POST /api/admin/console/accounts/:accountId/sessions/revoke (platform admins): signs it out everywhere. */
export async function revokeConsoleAccountSessions(
  deps: ConsoleDeps,
  accountId: string,
): Promise<{ revoked: number }> {
  if (!(await deps.accounts.findById(accountId))) throw consoleErrors.accountNotFound();
  const revoked = await deps.sessions.revokeAccount(accountId, deps.clock());
  deps.invalidator.consoleAccountChanged(accountId);
  return { revoked };
}
