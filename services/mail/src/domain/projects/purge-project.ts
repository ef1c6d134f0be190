import type { ProjectId } from '@baas/common';
import type { MailDeps } from '../deps';

/** On project.deleted: the project's templates, usage counters and message records go. */
export async function purgeProject(
  deps: Pick<MailDeps, 'templates' | 'usage' | 'messages' | 'logger'>,
  projectId: ProjectId,
): Promise<void> {
  const templates = await deps.templates.deleteAllOfProject(projectId);
  await deps.usage.deleteAllOfProject(projectId);
  await deps.messages.deleteAllOfProject(projectId);
  deps.logger.info({ projectId, templates }, 'project mail data removed');
}
