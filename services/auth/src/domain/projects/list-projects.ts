import type { AdminPage, ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';
import { projectView } from './views';
import { toPage, type PageRequest } from '../admin/admin-list';

/**
 * One page of the live projects, newest first, as the admin sees each (keys by prefix only).
 * `scope` (the projects a console account holds a role on, from the gateway's assertion) limits
 * the list to those; absent, every project is listed.
 */
export async function listProjects(
  deps: ProjectDeps,
  req: PageRequest,
  scope?: readonly ProjectId[],
): Promise<AdminPage<ReturnType<typeof projectView>>> {
  if (scope?.length === 0) return toPage([], req, (p) => projectView(p, deps.defaults));
  const rows = await deps.projects.list({
    limit: req.limit + 1,
    before: req.before,
    ...(scope ? { ids: scope } : {}),
  });
  return toPage(rows, req, (p) => projectView(p, deps.defaults));
}
