import type { ConsoleDeps } from './deps';
import { authErrors } from '../users/auth-errors';
import type { ConsoleAccount, ConsoleSessionRecord } from './account';

/**
 * Needs the current password; every other session of the account ends (the caller's stays).
 * Conditional on the hash that was verified, so a concurrent change makes this one fail.
 */
export async function changeConsolePassword(
  deps: ConsoleDeps,
  caller: { account: ConsoleAccount; session: ConsoleSessionRecord },
  input: { currentPassword: string; newPassword: string },
): Promise<{ revokedSessions: number }> {
  const { account } = caller;
  if (!(await deps.hasher.verify(account.passwordHash, input.currentPassword)))
    throw authErrors.invalidCurrentPassword();
  const newHash = await deps.hasher.hash(input.newPassword);
  const now = deps.clock();
  if (!(await deps.accounts.replacePasswordHash(account.id, account.passwordHash, newHash, now)))
    throw authErrors.invalidCurrentPassword();
  const revoked = await deps.sessions.revokeAccount(account.id, now, caller.session.id);
  deps.invalidator.consoleAccountChanged(account.id);
  return { revokedSessions: revoked };
}
