import { Router } from 'express';
import { z } from 'zod';
import {
  auditSource,
  errors,
  isProjectIdString,
  jsonBody,
  parseInput,
  requireAdmin,
  trustedProjectId,
} from '@baas/common';
import type { ProjectDeps } from '../domain/projects/deps';
import { projectNameSchema, settingsPatchSchema } from '../domain/projects/project';
import { createProject } from '../domain/projects/create-project';
import { getProject } from '../domain/projects/get-project';
import { updateProject } from '../domain/projects/update-project';
import { deleteProject } from '../domain/projects/delete-project';
import { rotateKey } from '../domain/projects/rotate-key';
import { listProjects } from '../domain/projects/list-projects';
import { pageRequest, projectListQuery } from '../domain/admin/admin-list';

export const createSchema = z
  .object({ name: projectNameSchema, settings: settingsPatchSchema.optional() })
  .strict();
export const patchSchema = z
  .object({ name: projectNameSchema.optional(), settings: settingsPatchSchema.optional() })
  .strict();
export const rotateSchema = z.object({ type: z.enum(['secret', 'publishable']) }).strict();

function projectIdParam(raw: string | undefined) {
  if (!isProjectIdString(raw)) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  return trustedProjectId(raw);
}

/** The platform admin API for projects and keys (the gateway has checked the admin token). */
export function adminProjectRoutes(deps: ProjectDeps): Router {
  const r = Router();
  r.use((req, _res, next) => {
    requireAdmin(req);
    next();
  });
  r.use(jsonBody());
  r.get('/', async (req, res) => {
    const query = parseInput(projectListQuery, req.query, 'Invalid query parameter');
    // A console account that is not a platform admin sees only its projects (the gateway's scope).
    const scope = req.assertion?.scope?.map(trustedProjectId);
    const data = await listProjects(deps, pageRequest(query), scope);
    res.json({ success: true, data, message: 'Projects' });
  });
  r.post('/', async (req, res) => {
    const input = parseInput(createSchema, req.body);
    res
      .status(201)
      .json(await createProject(deps, { ...input, requestId: req.id, source: auditSource(req) }));
  });
  r.get('/:projectId', async (req, res) => {
    res.json(await getProject(deps, projectIdParam(req.params.projectId)));
  });
  r.patch('/:projectId', async (req, res) => {
    const id = projectIdParam(req.params.projectId);
    const input = parseInput(patchSchema, req.body);
    res.json(await updateProject(deps, { id, ...input, requestId: req.id, source: auditSource(req) }));
  });
  r.delete('/:projectId', async (req, res) => {
    const id = projectIdParam(req.params.projectId);
    await deleteProject(deps, id, auditSource(req));
    res.json({ success: true, data: { id }, message: 'Project deleted' });
  });
  r.post('/:projectId/keys/rotate', async (req, res) => {
    const id = projectIdParam(req.params.projectId);
    const { type } = parseInput(rotateSchema, req.body);
    res.json(await rotateKey(deps, id, type, auditSource(req)));
  });
  return r;
}
