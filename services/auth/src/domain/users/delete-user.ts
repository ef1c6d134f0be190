import { auditEvent, createEvent, type AuditSource, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from './auth-errors';

/** The ids this service gives users, on every store: anything else names no user. */
const USER_ID = /^[a-f0-9]{24}$/;

/**
 * Removes a user (operator action): sessions end at once, user.deleted goes out with the delete.
 * An id of another shape is 404 without a trip to the store (where text PostgreSQL cannot hold,
 * a NUL, would be refused as a bad request instead).
 */
export async function deleteUser(
  deps: AuthDeps,
  projectId: ProjectId,
  userId: string,
  source: AuditSource,
): Promise<void> {
  if (!USER_ID.test(userId)) throw authErrors.userNotFound();
  const event = createEvent('user.deleted', projectId, { userId }, { requestId: source.requestId });
  const audit = auditEvent(projectId, source, 'user.deleted', { type: 'user', id: userId });
  if (!(await deps.users.delete(projectId, userId, [event, audit]))) throw authErrors.userNotFound();
  await deps.sessions.revokeUserFamilies(projectId, userId, 'user_deleted', deps.clock());
}
