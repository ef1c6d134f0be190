import type { AuditSource } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { consoleErrors } from './console-errors';
import { appendPlatformAudit } from './platform-audit';

/**
 * DELETE /api/admin/console/accounts/:accountId (platform admins): the account, its memberships,
 * sessions and reset code go; its sessions stop working at once (gateways invalidated). It may
 * leave a project without an owner, which platform admins still manage.
 */
export async function deleteConsoleAccount(
  deps: ConsoleDeps,
  accountId: string,
  source: AuditSource,
): Promise<void> {
  const account = await deps.accounts.findById(accountId);
  if (!account || !(await deps.accounts.delete(accountId))) throw consoleErrors.accountNotFound();
  deps.invalidator.consoleAccountChanged(accountId);
  await appendPlatformAudit(deps.audit, source, 'console_account.deleted', accountId, {
    email: account.email,
  });
}
