import type { AuditSource } from '@baas/common';
import { DuplicateConsoleEmailError } from '../../ports';
import type { ConsoleDeps } from './deps';
import { accountView, type AccountView, type ConsoleAccount } from './account';
import { consoleErrors } from './console-errors';
import { appendPlatformAudit } from './platform-audit';
import { normalizeEmail } from '../users/user';

/** POST /api/admin/console/accounts (platform admins): 409 EMAIL_TAKEN when the email is in use. */
export async function createConsoleAccount(
  deps: ConsoleDeps,
  input: { email: string; password: string; platformAdmin?: boolean },
  source: AuditSource,
): Promise<AccountView> {
  const email = input.email.trim();
  if (await deps.accounts.findByEmail(normalizeEmail(email))) throw consoleErrors.emailTaken();
  const now = deps.clock();
  const account: ConsoleAccount = {
    id: deps.ids.id(),
    email,
    passwordHash: await deps.hasher.hash(input.password),
    platformAdmin: input.platformAdmin ?? false,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await deps.accounts.insert(account);
  } catch (e) {
    if (e instanceof DuplicateConsoleEmailError) throw consoleErrors.emailTaken();
    throw e;
  }
  await appendPlatformAudit(deps.audit, source, 'console_account.created', account.id, {
    email: account.email,
    platformAdmin: account.platformAdmin,
  });
  return accountView(account, []);
}
