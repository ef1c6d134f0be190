import { errors, type ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';
import { projectView } from './views';

export async function getProject(deps: ProjectDeps, id: ProjectId) {
  const p = await deps.projects.findById(id);
  if (!p) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  return projectView(p, deps.defaults);
}
