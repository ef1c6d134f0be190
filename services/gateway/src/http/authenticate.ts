import { createHash, timingSafeEqual } from 'node:crypto';
import { errors, isProjectIdString, type AppError } from '@baas/common';
import { isUsersCollectionPath } from '../domain/routes';
import { originAllowed } from '../domain/origin-policy';
import type { ProjectDirectory } from '../ports';
import { corsForProject } from './cors';
import { header, type Exchange } from './exchange';

const KEY_FORMAT = /^(pk|sk)_live_[A-Za-z0-9_-]{16,200}$/;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Establishes who is calling: a project key (x-api-key), the platform admin token (Bearer), or
 * nobody for public routes; checks the origin allowlist and the reserved users collection. Sets
 * `ex.claims` (and `ex.project`), or returns the error to answer with.
 */
export function authenticator(opts: { directory: ProjectDirectory; adminToken: string }) {
  const adminDigest = sha256(opts.adminToken);
  const isAdmin = (ex: Exchange): boolean => {
    const h = header(ex.req, 'authorization');
    if (!h?.startsWith('Bearer ')) return false;
    // Digests have equal length, so the comparison is constant-time whatever was sent.
    return timingSafeEqual(sha256(h.slice(7)), adminDigest);
  };

  return async (ex: Exchange): Promise<AppError | undefined> => {
    const route = ex.route;
    if (!route) return errors.routeNotFound();
    switch (route.auth) {
      case 'public':
        ex.claims = { admin: false };
        return undefined;
      case 'admin':
        if (!isAdmin(ex)) return errors.adminTokenRequired();
        ex.claims = { admin: true, clientIp: ex.ip };
        return undefined;
      case 'admin-project': {
        if (!isAdmin(ex)) return errors.adminTokenRequired();
        const pid = route.projectId ?? '';
        const project = isProjectIdString(pid) ? await opts.directory.byId(pid, ex.id) : null;
        if (!project) return errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
        ex.project = project;
        ex.claims = {
          admin: true,
          projectId: project.projectId,
          settings: project.settings,
          clientIp: ex.ip,
        };
        return undefined;
      }
      case 'key': {
        const key = header(ex.req, 'x-api-key');
        if (!key) return errors.missingApiKey();
        const project = KEY_FORMAT.test(key)
          ? await opts.directory.byKeyHash(sha256(key).toString('hex'), ex.id)
          : null;
        if (!project?.keyType) return errors.invalidApiKey();
        const origin = header(ex.req, 'origin');
        if (!originAllowed(project.allowedOrigins, origin)) return errors.originNotAllowed();
        if (origin !== undefined) corsForProject(ex.res, origin, project.allowedOrigins.length > 0);
        if (isUsersCollectionPath(ex.path)) return errors.usersCollectionReserved();
        ex.project = project;
        ex.claims = {
          admin: false,
          projectId: project.projectId,
          keyType: project.keyType,
          settings: project.settings,
          clientIp: ex.ip,
        };
        return undefined;
      }
    }
  };
}
