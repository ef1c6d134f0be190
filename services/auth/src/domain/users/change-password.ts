import { createEvent, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from './auth-errors';
import { userSecurityEvent, type RequestOrigin } from '../audit/user-security-events';
import type { User } from './user';

/**
 * Needs the current password. Every other login of the user ends (their refresh families are
 * revoked); the caller's own session, the one in the access token, stays. Audited as
 * `user.password_changed` in the same write as the new hash.
 */
export async function changePassword(
  deps: AuthDeps,
  projectId: ProjectId,
  caller: { user: User; sessionId: string },
  input: { currentPassword: string; newPassword: string },
  origin: RequestOrigin,
): Promise<void> {
  const { user } = caller;
  if (!(await deps.hasher.verify(user.passwordHash, input.currentPassword)))
    throw authErrors.invalidCurrentPassword();
  const newHash = await deps.hasher.hash(input.newPassword);
  const event = createEvent(
    'user.updated',
    projectId,
    { userId: user.id, changed: ['password'] },
    { requestId: origin.requestId },
  );
  const audit = userSecurityEvent(
    projectId,
    origin,
    'user.password_changed',
    { type: 'end-user', id: user.id },
    user.id,
  );
  // Conditional on the hash we verified against: a concurrent change makes this one fail.
  if (!(await deps.users.replacePasswordHash(projectId, user.id, user.passwordHash, newHash, [event, audit])))
    throw authErrors.invalidCurrentPassword();
  await deps.sessions.revokeUserFamilies(
    projectId,
    user.id,
    'password_changed',
    deps.clock(),
    caller.sessionId,
  );
}
