import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { errors, isProjectIdString } from '@baas/common';
import { isUsersCollectionPath } from '../domain/routes';
import { originAllowed } from '../domain/origin-policy';
import type { ProjectDirectory } from '../ports';

const KEY_FORMAT = /^(pk|sk)_live_[A-Za-z0-9_-]{16,200}$/;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Establishes who is calling: a project key (x-api-key), the platform admin token (Bearer), or
 * nobody for public routes. Checks the origin allowlist and the reserved users collection.
 */
export function authenticateMiddleware(opts: { directory: ProjectDirectory; adminToken: string }) {
  const adminDigest = sha256(opts.adminToken);
  const isAdmin = (req: Request): boolean => {
    const h = req.header('authorization');
    if (!h?.startsWith('Bearer ')) return false;
    // Digests have equal length, so the comparison is constant-time whatever was sent.
    return timingSafeEqual(sha256(h.slice(7)), adminDigest);
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const state = req.gateway;
    if (!state) return next(errors.routeNotFound());
    const { route } = state;
    switch (route.auth) {
      case 'public':
        state.claims = { requestId: req.id, admin: false };
        return next();
      case 'admin':
        if (!isAdmin(req)) return next(errors.adminTokenRequired());
        state.claims = { requestId: req.id, admin: true };
        return next();
      case 'admin-project': {
        if (!isAdmin(req)) return next(errors.adminTokenRequired());
        const pid = route.projectId ?? '';
        const project = isProjectIdString(pid) ? await opts.directory.byId(pid, req.id) : null;
        if (!project) return next(errors.notFound('PROJECT_NOT_FOUND', 'Project not found'));
        state.project = project;
        state.claims = {
          requestId: req.id,
          admin: true,
          projectId: project.projectId,
          settings: project.settings,
        };
        return next();
      }
      case 'key': {
        const key = req.header('x-api-key');
        if (!key) return next(errors.missingApiKey());
        const project = KEY_FORMAT.test(key)
          ? await opts.directory.byKeyHash(sha256(key).toString('hex'), req.id)
          : null;
        if (!project?.keyType) return next(errors.invalidApiKey());
        const origin = req.header('origin');
        if (!originAllowed(project.allowedOrigins, origin)) return next(errors.originNotAllowed());
        if (origin !== undefined) {
          res.setHeader('Access-Control-Allow-Origin', origin);
          res.setHeader('Access-Control-Allow-Credentials', 'true');
          res.setHeader(
            'Access-Control-Expose-Headers',
            'x-request-id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
          );
        }
        if (isUsersCollectionPath(req.path)) return next(errors.usersCollectionReserved());
        state.project = project;
        state.claims = {
          requestId: req.id,
          admin: false,
          projectId: project.projectId,
          keyType: project.keyType,
          settings: project.settings,
        };
        return next();
      }
    }
  };
}
