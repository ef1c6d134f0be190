import type { ServiceName } from '@baas/common';

/**
 * The routing table. `key`: a project API key is required; `admin`: the platform admin token or
 * a console session whose role allows the request (domain/console-access.ts); `admin-project`:
 * the same plus a project id in the path that must exist; `public`: none.
 */
export type RouteAuth = 'key' | 'admin' | 'admin-project' | 'public';

/** Who answers: a service behind the gateway, or the gateway itself (`answer` says what). */
export type RouteTarget = ServiceName | 'gateway';

/** What the gateway answers itself: the OpenAPI document, a project's usage composed from three services. */
export type GatewayAnswer = 'openapi' | 'project-usage';

export interface RouteMatch {
  service: RouteTarget;
  auth: RouteAuth;
  /** The route group, a bounded label for metrics (e.g. `/api/data`). */
  prefix: string;
  /** The stricter auth limiter applies too. */
  authLimiter: boolean;
  /**
   * Limited per caller like an admin request when it carries a live console session (the
   * console's own session check and sign-out), else per address.
   */
  perCaller?: boolean;
  projectId?: string;
  /** Set when `service` is `gateway`. */
  answer?: GatewayAnswer;
}

/** A group of paths under one prefix, sent to one service with one kind of authentication. */
export interface RouteGroup {
  prefix: string;
  service: RouteTarget;
  auth: RouteAuth;
  authLimiter: boolean;
  /** Only the prefix itself, nothing under it. */
  exact?: boolean;
  perCaller?: boolean;
  answer?: GatewayAnswer;
}

/**
 * Sub-resources of one project (`/api/admin/projects/:projectId/<segment>`): admin token plus a
 * project that exists, checked by the gateway, which passes the project's settings on.
 */
export const ADMIN_PROJECT_SEGMENTS: Readonly<
  Record<string, Omit<RouteGroup, 'prefix' | 'auth' | 'authLimiter'>>
> = {
  collections: { service: 'data' },
  documents: { service: 'data' },
  data: { service: 'data' },
  files: { service: 'storage' },
  storage: { service: 'storage' },
  mail: { service: 'mail' },
  'users-schema': { service: 'auth' },
  users: { service: 'auth' },
  // Console members; a project's audit log stays on /api/admin/projects (auth answers it after
  // the project was deleted too).
  members: { service: 'auth' },
  usage: { service: 'gateway', answer: 'project-usage', exact: true },
};

/** The rest of the table, first match wins. */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  {
    prefix: '/api/openapi.json',
    service: 'gateway',
    auth: 'public',
    authLimiter: false,
    exact: true,
    answer: 'openapi',
  },
  { prefix: '/api/admin/projects', service: 'auth', auth: 'admin', authLimiter: false },
  { prefix: '/api/admin/mail', service: 'mail', auth: 'admin', authLimiter: false },
  { prefix: '/api/admin/signing-keys', service: 'auth', auth: 'admin', authLimiter: false },
  { prefix: '/api/admin/audit', service: 'auth', auth: 'admin', authLimiter: false },
  { prefix: '/api/admin/console', service: 'auth', auth: 'admin', authLimiter: false },
  // Console sign-in, session, invitations, password reset: anyone may try, at the auth limit.
  // The console asks for its session on every page load and signs out: those count against the
  // session's account (per address without one), not the strict limit that guards credentials.
  {
    prefix: '/api/console/session',
    service: 'auth',
    auth: 'public',
    authLimiter: false,
    exact: true,
    perCaller: true,
  },
  {
    prefix: '/api/console/logout',
    service: 'auth',
    auth: 'public',
    authLimiter: false,
    exact: true,
    perCaller: true,
  },
  { prefix: '/api/console', service: 'auth', auth: 'public', authLimiter: true },
  { prefix: '/api/userAuth', service: 'auth', auth: 'key', authLimiter: true },
  { prefix: '/api/data', service: 'data', auth: 'key', authLimiter: false },
  { prefix: '/api/storage', service: 'storage', auth: 'key', authLimiter: false },
  { prefix: '/api/mail', service: 'mail', auth: 'key', authLimiter: false },
  { prefix: '/files', service: 'storage', auth: 'public', authLimiter: false },
  { prefix: '/.well-known/jwks.json', service: 'auth', auth: 'public', authLimiter: false, exact: true },
];

const ADMIN_PROJECT_SUB = /^\/api\/admin\/projects\/([^/]+)\/([^/]+)(\/.*)?$/;

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

function matched(g: RouteGroup, prefix: string, projectId?: string): RouteMatch {
  const m: RouteMatch = { service: g.service, auth: g.auth, authLimiter: g.authLimiter, prefix };
  if (projectId !== undefined) m.projectId = projectId;
  if (g.answer) m.answer = g.answer;
  if (g.perCaller) m.perCaller = true;
  return m;
}

export function matchRoute(path: string): RouteMatch | undefined {
  const sub = ADMIN_PROJECT_SUB.exec(path);
  const name = sub?.[2] ?? '';
  const segment = Object.hasOwn(ADMIN_PROJECT_SEGMENTS, name) ? ADMIN_PROJECT_SEGMENTS[name] : undefined;
  if (sub && segment) {
    if (segment.exact && sub[3] !== undefined && sub[3] !== '/') return undefined;
    const prefix = `/api/admin/projects/:projectId/${name}`;
    return matched({ ...segment, prefix, auth: 'admin-project', authLimiter: false }, prefix, sub[1] ?? '');
  }
  for (const g of ROUTE_GROUPS) {
    if (g.exact ? path === g.prefix : under(path, g.prefix)) return matched(g, g.prefix);
  }
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
