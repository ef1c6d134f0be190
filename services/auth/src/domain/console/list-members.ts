import type { ProjectId } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { invitationView, memberView } from './account';
import { consoleErrors } from './console-errors';

/** GET /api/admin/projects/:projectId/members: members, and invitations still pending. */
export async function listMembers(deps: ConsoleDeps, projectId: ProjectId) {
  if (!(await deps.projects.findById(projectId))) throw consoleErrors.projectNotFound();
  const [members, invitations] = await Promise.all([
    deps.members.ofProject(projectId),
    deps.members.pendingInvitations(projectId, deps.clock()),
  ]);
  return { members: members.map(memberView), invitations: invitations.map(invitationView) };
}
