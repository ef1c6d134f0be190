import { Router } from 'express';
import {
  adminProjectContext,
  auditSource,
  errors,
  isProjectIdString,
  jsonBody,
  parseInput,
  requireAdmin,
  trustedProjectId,
} from '@baas/common';
import type { AuthDeps } from '../domain/deps';
import type { ProjectRepository } from '../ports';
import { usersSchemaBody } from '../domain/users/users-schema';
import { putUsersSchema } from '../domain/users/put-users-schema';
import { deleteUser } from '../domain/users/delete-user';
import { listUsers } from '../domain/users/list-users';
import { pageRequest, userListQuery } from '../domain/admin/admin-list';

/**
 * Operator endpoints for a project's users:
 * - PUT /api/admin/projects/:projectId/users-schema (gateway: admin token + project exists);
 * - GET /api/admin/projects/:projectId/users?search=&limit=&cursor= (gateway: admin token + project exists);
 * - DELETE /api/admin/projects/:projectId/users/:userId (gateway: admin token + project exists; checked here too).
 */
export function adminUserRoutes(deps: AuthDeps, projects: ProjectRepository): Router {
  const r = Router();
  r.use(jsonBody('64kb'));
  r.put('/:projectId/users-schema', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    const { fields } = parseInput(usersSchemaBody, req.body);
    const data = await putUsersSchema(deps.schemas, ctx.projectId, fields);
    res.json({ success: true, data, message: 'Users schema saved' });
  });
  r.get('/:projectId/users-schema', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    res.json({
      success: true,
      data: { fields: (await deps.schemas.get(ctx.projectId)) ?? [] },
      message: 'Users schema',
    });
  });
  r.get('/:projectId/users', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    const query = parseInput(userListQuery, req.query, 'Invalid query parameter');
    const page = await listUsers(deps.users, ctx.projectId, { ...pageRequest(query), search: query.search });
    res.json({ success: true, data: page, message: 'Users' });
  });
  r.delete('/:projectId/users/:userId', async (req, res) => {
    requireAdmin(req);
    const raw = req.params.projectId;
    const project = isProjectIdString(raw) ? await projects.findById(trustedProjectId(raw)) : null;
    if (!project) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
    await deleteUser(deps, project.id, req.params.userId ?? '', auditSource(req));
    res.json({ success: true, data: { id: req.params.userId }, message: 'User deleted' });
  });
  return r;
}
