import { createEvent, type EventEnvelope, type ProjectId } from '@baas/common';

/**
 * The event every revoked refresh family is written with (the outbox of that write): data,
 * storage and auth replicas refuse the family's access tokens (`sid`) when it arrives.
 */
export function sessionRevoked(
  projectId: ProjectId,
  family: { id: string; userId: string },
  reason: string,
): EventEnvelope<'auth.session_revoked'> {
  return createEvent('auth.session_revoked', projectId, {
    userId: family.userId,
    sessionId: family.id,
    reason,
  });
}
