import { createConsolePasswordResetEvent } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { normalizeEmail } from '../users/user';
import { linkTokenDigest, newConsoleToken } from './tokens';

/**
 * POST /api/console/password-reset/request: the same answer whether or not an account has the
 * email (no enumeration). For an account, a new reset code replaces the previous one and
 * console.password_reset_requested (the link token sealed for the mail service) is written with
 * it; within the resend interval of the last code nothing is sent (per-account mail flooding).
 */
export async function requestConsolePasswordReset(
  deps: ConsoleDeps,
  email: string,
  requestId: string,
): Promise<void> {
  const account = await deps.accounts.findByEmail(normalizeEmail(email));
  if (!account) return;
  const now = deps.clock();
  const token = newConsoleToken();
  const event = createConsolePasswordResetEvent(
    deps.mailEnvelopeKey,
    { accountId: account.id, email: account.email },
    { token },
    { requestId },
  );
  const notIssuedAfter = new Date(now.getTime() - deps.policy.resetResendIntervalSeconds * 1000);
  await deps.accounts.putResetCode(
    {
      accountId: account.id,
      tokenHash: linkTokenDigest('password-reset', token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.policy.resetCodeTtlSeconds * 1000),
    },
    [event],
    notIssuedAfter,
  );
}
