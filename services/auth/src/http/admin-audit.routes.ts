import { Router } from 'express';
import { errors, isProjectIdString, requireAdmin, trustedProjectId } from '@baas/common';
import type { AuditLog, ConsoleMemberRepository, ProjectRepository } from '../ports';
import { parseAuditQuery } from '../domain/audit/audit-entry';
import { listAuditEntries } from '../domain/audit/list-audit-entries';
import { requirePlatformAdmin, requireProjectRole } from './console-access';

/**
 * The audit log, read-only (the gateway checked the admin token; no route writes or deletes):
 * - GET /api/admin/audit?projectId=&action=&limit=&cursor= — every entry, platform-wide ones too;
 * - GET /api/admin/projects/:projectId/audit?action=&limit=&cursor= — one project's, also after
 *   the project was deleted (404 only for an id that is neither a project nor in the log).
 * Console accounts: the whole log is for platform admins; a project's for its viewers and above.
 */
export function adminAuditRoutes(
  log: AuditLog,
  projects: ProjectRepository,
  members: Pick<ConsoleMemberRepository, 'ofAccount'>,
): Router {
  const r = Router();
  r.get('/api/admin/audit', async (req, res) => {
    requirePlatformAdmin(req);
    const query = parseAuditQuery(req.query, { projectIdParam: true });
    res.json({ success: true, data: await listAuditEntries(log, query), message: 'Audit log' });
  });
  r.get('/api/admin/projects/:projectId/audit', async (req, res) => {
    requireAdmin(req);
    const raw = req.params.projectId;
    if (!isProjectIdString(raw)) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
    const projectId = trustedProjectId(raw);
    await requireProjectRole(req, members, projectId, 'viewer');
    const query = parseAuditQuery(req.query, { projectIdParam: false });
    const page = await listAuditEntries(log, { ...query, projectId });
    if (page.items.length === 0 && !query.before && !query.action && !(await projects.findById(projectId)))
      throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
    res.json({ success: true, data: page, message: 'Audit log' });
  });
  return r;
}
