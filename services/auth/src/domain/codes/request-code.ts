import { createCodeEvent, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import type { User } from '../users/user';
import { newCode } from './one-time-code';

/**
 * Issues a password-reset code for an existing user and records auth.password_reset_requested
 * (what the mail service sends, with the codes sealed for it) in the same write. A new code replaces the previous one; within
 * CODE_RESEND_INTERVAL_SECONDS of the last one nothing is sent (per-account mail flooding).
 */
export async function issueResetCode(
  deps: AuthDeps,
  projectId: ProjectId,
  user: User,
  requestId: string,
): Promise<boolean> {
  const now = deps.clock();
  const code = newCode(
    deps.secrets.codes,
    'reset_password',
    projectId,
    user.id,
    now,
    deps.policy.resetCodeTtlSeconds,
  );
  // The token and the code travel sealed for the mail service only (never in clear in an event).
  const event = createCodeEvent(
    deps.mailEnvelopeKey,
    'auth.password_reset_requested',
    projectId,
    { userId: user.id, email: user.email, expiresAt: code.stored.expiresAt.toISOString() },
    { token: code.token, otp: code.otp },
    { requestId },
  );
  const notIssuedAfter = new Date(now.getTime() - deps.policy.codeResendIntervalSeconds * 1000);
  return deps.users.setCode(projectId, user.id, 'reset_password', code.stored, [event], notIssuedAfter);
}

/** Always the same answer, whether or not the email belongs to a user (no enumeration). */
export async function requestPasswordReset(
  deps: AuthDeps,
  projectId: ProjectId,
  email: string,
  requestId: string,
): Promise<void> {
  const user = await deps.users.findByEmail(projectId, email);
  if (user) await issueResetCode(deps, projectId, user, requestId);
}
