import type { AdminPage } from '@baas/common';
import type { ProjectDeps } from './deps';
import { projectView } from './views';
import { toPage, type PageRequest } from '../admin/admin-list';

/** One page of the live projects, newest first, as the admin sees each (keys by prefix only). */
export async function listProjects(
  deps: ProjectDeps,
  req: PageRequest,
): Promise<AdminPage<ReturnType<typeof projectView>>> {
  const rows = await deps.projects.list({ limit: req.limit + 1, before: req.before });
  return toPage(rows, req, (p) => projectView(p, deps.defaults));
}
