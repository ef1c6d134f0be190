import type { ProjectId } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { consoleErrors } from './console-errors';

/** DELETE /api/admin/projects/:projectId/members/invitations/:invitationId: its link stops working. */
export async function cancelInvitation(
  deps: ConsoleDeps,
  projectId: ProjectId,
  invitationId: string,
): Promise<void> {
  if (!(await deps.members.cancelInvitation(projectId, invitationId, deps.clock())))
    throw consoleErrors.invitationNotFound();
}
