import type { ServiceName } from '@baas/common';

/**
 * The routing table. `key`: a project API key is required; `admin`: the platform admin token;
 * `admin-project`: the admin token plus a project id in the path that must exist; `public`: none.
 */
export type RouteAuth = 'key' | 'admin' | 'admin-project' | 'public';

export interface RouteMatch {
  service: ServiceName;
  auth: RouteAuth;
  /** The route group, a bounded label for metrics (e.g. `/api/data`). */
  prefix: string;
  /** The stricter auth limiter applies too. */
  authLimiter: boolean;
  projectId?: string;
}

const ADMIN_PROJECT_SUB = /^\/api\/admin\/projects\/([^/]+)\/(collections|mail|users-schema)(?:\/|$)/;

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function matchRoute(path: string): RouteMatch | undefined {
  const sub = ADMIN_PROJECT_SUB.exec(path);
  if (sub) {
    const service: ServiceName = sub[2] === 'collections' ? 'data' : sub[2] === 'mail' ? 'mail' : 'auth';
    return {
      service,
      auth: 'admin-project',
      authLimiter: false,
      projectId: sub[1] ?? '',
      prefix: `/api/admin/projects/:projectId/${sub[2]}`,
    };
  }
  if (under(path, '/api/admin/projects'))
    return { service: 'auth', auth: 'admin', authLimiter: false, prefix: '/api/admin/projects' };
  if (under(path, '/api/admin/mail'))
    return { service: 'mail', auth: 'admin', authLimiter: false, prefix: '/api/admin/mail' };
  if (under(path, '/api/admin/signing-keys'))
    return { service: 'auth', auth: 'admin', authLimiter: false, prefix: '/api/admin/signing-keys' };
  if (under(path, '/api/admin/audit'))
    return { service: 'auth', auth: 'admin', authLimiter: false, prefix: '/api/admin/audit' };
  if (under(path, '/api/userAuth'))
    return { service: 'auth', auth: 'key', authLimiter: true, prefix: '/api/userAuth' };
  if (under(path, '/api/data'))
    return { service: 'data', auth: 'key', authLimiter: false, prefix: '/api/data' };
  if (under(path, '/api/storage'))
    return { service: 'storage', auth: 'key', authLimiter: false, prefix: '/api/storage' };
  if (under(path, '/api/mail'))
    return { service: 'mail', auth: 'key', authLimiter: false, prefix: '/api/mail' };
  if (under(path, '/files'))
    return { service: 'storage', auth: 'public', authLimiter: false, prefix: '/files' };
  if (path === '/.well-known/jwks.json')
    return { service: 'auth', auth: 'public', authLimiter: false, prefix: path };
  return undefined;
}

/** `/api/data/users` and everything under it, however the segment is spelled or encoded. */
export function isUsersCollectionPath(path: string): boolean {
  if (!under(path, '/api/data')) return false;
  const first = path
    .slice('/api/data'.length)
    .split('/')
    .find((s) => s.length > 0);
  if (first === undefined) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(first);
  } catch {
    return false;
  }
  return decoded.trim().toLowerCase() === 'users';
}

const PROJECT_MUTATION = /^\/api\/admin\/projects\/([a-f0-9]{24})(?:\/keys\/rotate)?\/?$/;

/**
 * The project whose keys or settings an admin request changes (PATCH, DELETE, key rotation),
 * so the gateway that carried it can drop its cached copy before answering.
 */
export function mutatedProjectId(method: string, path: string): string | undefined {
  if (method !== 'PATCH' && method !== 'DELETE' && method !== 'POST') return undefined;
  const m = PROJECT_MUTATION.exec(path);
  if (!m) return undefined;
  if (method === 'POST' && !path.replace(/\/$/, '').endsWith('/keys/rotate')) return undefined;
  return m[1];
}
