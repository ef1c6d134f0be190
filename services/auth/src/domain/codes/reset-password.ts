import { createEvent, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from '../users/auth-errors';
import { checkCode, claimCodeUse, type CodeInput } from './redeem-code';
import { userSecurityEvent, type RequestOrigin } from '../audit/user-security-events';

/**
 * Sets a new password with a reset code. The code is checked before any hashing (so invalid codes
 * cost no argon2), consumed in the same write as the new hash, and then every session of the
 * user ends. Proving control of the mailbox also verifies the email. Audited as
 * `user.password_reset` (by whoever held the code: anonymous) in the same write.
 */
export async function resetPassword(
  deps: AuthDeps,
  projectId: ProjectId,
  input: CodeInput,
  newPassword: string,
  origin: RequestOrigin,
): Promise<void> {
  const { user, tokenHash } = await checkCode(deps, projectId, 'reset_password', input);
  const passwordHash = await deps.hasher.hash(newPassword);
  await claimCodeUse(deps, projectId, user, 'reset_password', tokenHash);
  const event = createEvent(
    'user.updated',
    projectId,
    { userId: user.id, changed: ['password', 'emailVerified'] },
    { requestId: origin.requestId },
  );
  const audit = userSecurityEvent(projectId, origin, 'user.password_reset', { type: 'anonymous' }, user.id);
  const done = await deps.users.consumeCode(
    projectId,
    user.id,
    'reset_password',
    tokenHash,
    { passwordHash, emailVerified: true },
    [event, audit],
  );
  if (!done) throw authErrors.invalidCode();
  await deps.sessions.revokeUserFamilies(projectId, user.id, 'password_reset', deps.clock());
}
