import { roleAtLeast, type ConsoleMembership, type ConsoleRole } from '@baas/common';

/**
 * What a console account may do on the admin API, decided from the method and path alone (the
 * gateway answers before any service runs). A platform admin may do what the token may. Anyone
 * else: the project list, filtered to its projects; under /api/admin/projects/{id}, what its role
 * on that project allows; nothing platform-wide.
 */

const PROJECTS = '/api/admin/projects';

/** What an admin request asks of a console account. */
export type ConsoleRequirement =
  | { kind: 'platform-admin' }
  | { kind: 'project-list' }
  | { kind: 'project'; projectId: string; role: ConsoleRole };

export type ConsoleRefusal = 'PLATFORM_ADMIN_REQUIRED' | 'PROJECT_NOT_FOUND' | 'INSUFFICIENT_ROLE';

export type ConsoleDecision =
  | { allowed: true; /** The projects a platform-wide list is filtered to. */ scope?: string[] }
  | { allowed: false; refusal: ConsoleRefusal };

/** The account as a live session shows it. */
export interface ConsoleAccountAccess {
  platformAdmin: boolean;
  memberships: readonly ConsoleMembership[];
}

const PLATFORM_ADMIN: ConsoleRequirement = { kind: 'platform-admin' };

export function isReadMethod(method: string): boolean {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD';
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * A project path's parts as the services' routers would see them: percent-decoding undone and,
 * past the project id, lower case (express routes case-insensitively), empty segments dropped.
 * Undefined when a part cannot be placed (undecodable, `.`/`..`, no project id): such a path is
 * left to platform admins rather than guessed at.
 */
function projectPath(rest: string): { projectId: string; sub: string[] } | undefined {
  const [first = '', ...others] = rest.split('/');
  const projectId = decoded(first);
  const sub = others.filter((s) => s.length > 0).map((s) => decoded(s)?.toLowerCase());
  const parts = [projectId, ...sub];
  if (!projectId || parts.some((p) => p === undefined || p === '.' || p === '..')) return undefined;
  return { projectId, sub: sub as string[] };
}

/** The role a request on one project needs: viewer reads; owner for the project itself, its keys, its members; developer else. */
function roleFor(method: string, sub: readonly string[]): ConsoleRole {
  if (isReadMethod(method)) return 'viewer';
  const first = sub[0];
  if (first === undefined || first === 'keys' || first === 'members') return 'owner';
  return 'developer';
}

/** What `method path` (an admin route, query string removed) asks of a console account. */
export function consoleRequirement(method: string, path: string): ConsoleRequirement {
  if (path !== PROJECTS && !path.startsWith(`${PROJECTS}/`)) return PLATFORM_ADMIN;
  const rest = path.slice(PROJECTS.length + 1);
  if (rest === '') return isReadMethod(method) ? { kind: 'project-list' } : PLATFORM_ADMIN;
  const p = projectPath(rest);
  if (!p) return PLATFORM_ADMIN;
  return { kind: 'project', projectId: p.projectId, role: roleFor(method, p.sub) };
}

/** Whether `account` may make the request `requirement` describes, and with which scope. */
export function decideConsoleAccess(
  account: ConsoleAccountAccess,
  requirement: ConsoleRequirement,
): ConsoleDecision {
  if (account.platformAdmin) return { allowed: true };
  switch (requirement.kind) {
    case 'platform-admin':
      return { allowed: false, refusal: 'PLATFORM_ADMIN_REQUIRED' };
    case 'project-list':
      return { allowed: true, scope: account.memberships.map((m) => m.projectId) };
    case 'project': {
      const membership = account.memberships.find((m) => m.projectId === requirement.projectId);
      // A project the account has no role on is one it cannot know exists.
      if (!membership) return { allowed: false, refusal: 'PROJECT_NOT_FOUND' };
      if (!roleAtLeast(membership.role, requirement.role))
        return { allowed: false, refusal: 'INSUFFICIENT_ROLE' };
      return { allowed: true };
    }
  }
}

/** What a successful request changed about console sessions, so this gateway forgets them at once. */
export type ConsoleSessionChange =
  | { kind: 'account'; accountId: string }
  /** The session that made the request (sign-out, password change). */
  | { kind: 'caller' }
  | { kind: 'all' };

const CALLER_CHANGES = new Set(['logout', 'password']);

/**
 * The console sessions a successful request made stale: the auth service announces every such
 * change on NATS for all gateways; the one that carried the request need not wait for it.
 */
export function consoleSessionChange(method: string, path: string): ConsoleSessionChange | undefined {
  const m = method.toUpperCase();
  if (isReadMethod(m)) return undefined;
  const parts = path.split('/').filter((s) => s.length > 0);
  const lower = parts.map((s) => s.toLowerCase());
  const [api, area, ...rest] = lower;
  if (api !== 'api') return undefined;
  if (area === 'console') {
    const [what, more] = rest;
    return m === 'POST' && what !== undefined && more === undefined && CALLER_CHANGES.has(what)
      ? { kind: 'caller' }
      : undefined;
  }
  if (area !== 'admin') return undefined;
  const [group, id, sub, subId, more] = rest;
  const original = (i: number) => decoded(parts[i] ?? '') ?? '';
  if (group === 'projects' && id !== undefined) {
    // a deleted project takes its memberships with it
    if (sub === undefined) return m === 'DELETE' ? { kind: 'all' } : undefined;
    if (sub === 'members' && subId !== undefined && more === undefined && (m === 'PATCH' || m === 'DELETE'))
      return { kind: 'account', accountId: original(5) };
    return undefined;
  }
  if (group === 'console' && id === 'accounts' && sub !== undefined) {
    const accountId = original(4);
    if (subId === undefined && (m === 'PATCH' || m === 'DELETE')) return { kind: 'account', accountId };
    if (subId === 'sessions' && more === 'revoke' && rest.length === 5) return { kind: 'account', accountId };
  }
  return undefined;
}
