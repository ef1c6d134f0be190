import type { ConsoleDeps } from './deps';
import { authErrors } from '../users/auth-errors';
import { linkTokenDigest } from './tokens';

/**
 * POST /api/console/password-reset: sets a new password with the link token of the reset mail.
 * The token is checked before any hashing (an invalid one costs no argon2), used once in the
 * same write as the new hash, and then every session of the account ends. Every failure is the
 * same 400 INVALID_CODE.
 */
export async function resetConsolePassword(
  deps: ConsoleDeps,
  input: { token: string; newPassword: string },
): Promise<void> {
  const tokenHash = linkTokenDigest('password-reset', input.token);
  const code = await deps.accounts.findResetCode(tokenHash, deps.clock());
  if (!code) throw authErrors.invalidCode();
  const passwordHash = await deps.hasher.hash(input.newPassword);
  const now = deps.clock();
  if (!(await deps.accounts.consumeResetCode(code.accountId, tokenHash, passwordHash, now)))
    throw authErrors.invalidCode();
  await deps.sessions.revokeAccount(code.accountId, now);
  deps.invalidator.consoleAccountChanged(code.accountId);
}
