import type { ConsoleDeps } from './deps';
import { accountView, type AccountView } from './account';
import { consoleErrors } from './console-errors';

/**
 * PATCH /api/admin/console/accounts/:accountId (platform admins): grants or withdraws platform
 * admin; gateways drop the account's cached sessions at once, so it applies to the next request.
 */
export async function updateConsoleAccount(
  deps: ConsoleDeps,
  accountId: string,
  input: { platformAdmin: boolean },
): Promise<AccountView> {
  const account = await deps.accounts.setPlatformAdmin(accountId, input.platformAdmin, deps.clock());
  if (!account) throw consoleErrors.accountNotFound();
  deps.invalidator.consoleAccountChanged(accountId);
  return accountView(account, await deps.members.ofAccount(accountId));
}
