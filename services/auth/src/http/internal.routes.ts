import { Router } from 'express';
import { z } from 'zod';
import { errors, isProjectIdString, jsonBody, parseInput, trustedProjectId } from '@baas/common';
import type { ProjectDeps } from '../domain/projects/deps';
import type { ConsoleDeps } from '../domain/console/deps';
import { resolveApiKeyHash, resolveProjectById } from '../domain/projects/resolve-api-key';
import { resolveConsoleSession } from '../domain/console/resolve-session';
import { resolveSessionSchema } from './console.schemas';

const resolveSchema = z.object({ keyHash: z.string().regex(/^[a-f0-9]{64}$/) }).strict();

/**
 * Internal API for the gateway (never routed from outside: the gateway proxies only /api/...).
 * Requests still need a gateway assertion addressed to the auth service.
 */
export function internalRoutes(deps: ProjectDeps, consoleDeps: ConsoleDeps): Router {
  const r = Router();
  r.use(jsonBody('4kb'));
  r.post('/keys/resolve', async (req, res) => {
    const { keyHash } = parseInput(resolveSchema, req.body);
    const found = await resolveApiKeyHash(deps, keyHash);
    if (!found) throw errors.invalidApiKey();
    res.json(found);
  });
  // The gateway resolves a console session cookie by its SHA-256 (never the token itself).
  r.post('/console/sessions/resolve', async (req, res) => {
    const { tokenHash } = parseInput(resolveSessionSchema, req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await resolveConsoleSession(consoleDeps, tokenHash));
  });
  r.get('/projects/:projectId', async (req, res) => {
    const raw = req.params.projectId;
    const found = isProjectIdString(raw) ? await resolveProjectById(deps, trustedProjectId(raw)) : null;
    if (!found) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
    res.json(found);
  });
  return r;
}
