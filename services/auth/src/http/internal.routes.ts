import { Router } from 'express';
import { z } from 'zod';
import { errors, isProjectIdString, jsonBody, parseInput, trustedProjectId } from '@baas/common';
import type { ProjectDeps } from '../domain/projects/deps';
import { resolveApiKeyHash, resolveProjectById } from '../domain/projects/resolve-api-key';

const resolveSchema = z.object({ keyHash: z.string().regex(/^[a-f0-9]{64}$/) }).strict();

/**
 * Internal API for the gateway (never routed from outside: the gateway proxies only /api/...).
 * Requests still need a gateway assertion addressed to the auth service.
 */
export function internalRoutes(deps: ProjectDeps): Router {
  const r = Router();
  r.use(jsonBody('4kb'));
  r.post('/keys/resolve', async (req, res) => {
    const { keyHash } = parseInput(resolveSchema, req.body);
    const found = await resolveApiKeyHash(deps, keyHash);
    if (!found) throw errors.invalidApiKey();
    res.json(found);
  });
  r.get('/projects/:projectId', async (req, res) => {
    const raw = req.params.projectId;
    const found = isProjectIdString(raw) ? await resolveProjectById(deps, trustedProjectId(raw)) : null;
    if (!found) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
    res.json(found);
  });
  return r;
}
