import { auditEvent, createEvent, type AuditSource, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from './auth-errors';

/** Removes a user (operator action): sessions end at once, user.deleted goes out with the delete. */
export async function deleteUser(
  deps: AuthDeps,
  projectId: ProjectId,
  userId: string,
  source: AuditSource,
): Promise<void> {
  const event = createEvent('user.deleted', projectId, { userId }, { requestId: source.requestId });
  const audit = auditEvent(projectId, source, 'user.deleted', { type: 'user', id: userId });
  if (!(await deps.users.delete(projectId, userId, [event, audit]))) throw authErrors.userNotFound();
  await deps.sessions.revokeUserFamilies(projectId, userId, 'user_deleted', deps.clock());
}
