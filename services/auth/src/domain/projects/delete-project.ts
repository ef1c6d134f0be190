import { auditEvent, createEvent, errors, type AuditSource, type ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';

/**
 * Deletes a project: its keys stop working at once (hashes removed, gateways invalidated) and
 * `project.deleted` tells the data, storage and mail services to remove what they hold. Its
 * console memberships and invitations go too, and every member's cached sessions are dropped
 * (the `project.deleted` consumer removes any a failure here left behind).
 */
export async function deleteProject(deps: ProjectDeps, id: ProjectId, source: AuditSource): Promise<void> {
  const event = createEvent('project.deleted', id, {}, { requestId: source.requestId });
  const audit = auditEvent(id, source, 'project.deleted', { type: 'project', id });
  const deleted = await deps.projects.markDeleted(id, [event, audit]);
  if (!deleted) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  deps.invalidator.projectChanged(id);
  for (const accountId of await deps.members.deleteProject(id))
    deps.invalidator.consoleAccountChanged(accountId);
}
