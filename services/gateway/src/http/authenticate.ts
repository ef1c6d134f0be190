import { hash, timingSafeEqual } from 'node:crypto';
import {
  AppError,
  consoleSessionTokenHash,
  errors,
  isProjectIdString,
  type ConsoleSessionResolution,
} from '@baas/common';
import { isUsersCollectionPath, type RouteMatch } from '../domain/routes';
import { originAllowed } from '../domain/origin-policy';
import { consoleRequirement, decideConsoleAccess, type ConsoleRefusal } from '../domain/console-access';
import type { ConsoleSessions, ProjectDirectory } from '../ports';
import { corsForProject } from './cors';
import { header, type Exchange } from './exchange';
import { consoleSessionToken, csrfTokenValid, needsCsrfToken, originIsOwn } from './console-cookie';

const KEY_FORMAT = /^(pk|sk)_live_[A-Za-z0-9_-]{16,200}$/;

/** One-shot digest: no Hash object per request (the key is hashed on every request). */
function sha256(s: string): Buffer {
  return hash('sha256', s, 'buffer');
}

/** Who is calling an admin route: the platform admin token, or a live console session. */
export type AdminCaller =
  | { kind: 'token' }
  | { kind: 'session'; tokenHash: string; token: string; session: ConsoleSessionResolution };

/** The admin limiter's key of a caller: one bucket per console account, one for the token. */
export function adminRateKey(caller: AdminCaller): string {
  return caller.kind === 'token' ? 'token' : `account:${caller.session.accountId}`;
}

export function isAdminRoute(route: RouteMatch | undefined): boolean {
  return route?.auth === 'admin' || route?.auth === 'admin-project';
}

const REFUSALS: Record<ConsoleRefusal, () => AppError> = {
  PLATFORM_ADMIN_REQUIRED: () =>
    errors.forbidden('PLATFORM_ADMIN_REQUIRED', 'Only a platform admin may do this'),
  PROJECT_NOT_FOUND: () => errors.notFound('PROJECT_NOT_FOUND', 'Project not found'),
  INSUFFICIENT_ROLE: () =>
    errors.forbidden('INSUFFICIENT_ROLE', 'Your role on this project does not allow this'),
};

const csrfTokenInvalid = () =>
  errors.forbidden('CSRF_TOKEN_INVALID', 'Missing or invalid x-csrf-token, or a request from another origin');

export interface AuthenticatorOptions {
  directory: ProjectDirectory;
  adminToken: string;
  sessions: ConsoleSessions;
}

/**
 * Establishes who is calling: a project key (x-api-key), the platform admin token (Bearer) or a
 * console session (the `baas_console` cookie) on admin routes, or nobody for public routes;
 * checks the origin allowlist, the reserved users collection and, for a console session, CSRF
 * and the account's role. `identifyAdmin` runs first on admin routes (the admin rate limit is per
 * caller); `authenticate` then sets `ex.claims` (and `ex.project`), or returns the error.
 */
export function authenticator(opts: AuthenticatorOptions) {
  const adminDigest = sha256(opts.adminToken);

  /**
   * An Authorization header decides alone (the token wins; a wrong one is no caller), else the
   * console cookie. `lookUp: false` takes only a session already in memory (see rate-limit.ts).
   */
  async function identifyAdmin(ex: Exchange, lookUp = true): Promise<AdminCaller | undefined> {
    const h = header(ex.req, 'authorization');
    if (h !== undefined) {
      if (!h.startsWith('Bearer ')) return undefined;
      // Digests have equal length, so the comparison is constant-time whatever was sent.
      return timingSafeEqual(sha256(h.slice(7)), adminDigest) ? { kind: 'token' } : undefined;
    }
    const token = consoleSessionToken(ex.req);
    if (!token) return undefined;
    const tokenHash = consoleSessionTokenHash(token);
    if (!lookUp && !(opts.sessions.has?.(tokenHash) ?? false)) return undefined;
    const session = await opts.sessions.resolve(tokenHash, ex.id);
    return session ? { kind: 'session', tokenHash, token, session } : undefined;
  }

  /** A console session's request: from the console (Origin, CSRF), allowed by the account's role. */
  function authorizeSession(ex: Exchange, caller: Extract<AdminCaller, { kind: 'session' }>) {
    const method = ex.req.method ?? 'GET';
    if (!originIsOwn(ex.req)) return { error: csrfTokenInvalid() };
    if (needsCsrfToken(method) && !csrfTokenValid(ex.req, caller.token)) return { error: csrfTokenInvalid() };
    const decision = decideConsoleAccess(caller.session, consoleRequirement(method, ex.path));
    if (!decision.allowed) return { error: REFUSALS[decision.refusal]() };
    const { accountId, email, platformAdmin } = caller.session;
    return {
      claims: {
        account: { id: accountId, email, platformAdmin },
        ...(decision.scope ? { scope: decision.scope } : {}),
      },
    };
  }

  async function authenticate(ex: Exchange, caller?: AdminCaller): Promise<AppError | undefined> {
    const route = ex.route;
    if (!route) return errors.routeNotFound();
    switch (route.auth) {
      case 'public':
        // The console's routes record where a session signed in from; other public routes (file
        // downloads) get no address, so their assertion is one per audience, not one per client.
        ex.claims = route.prefix.startsWith('/api/console')
          ? { admin: false, clientIp: ex.ip }
          : { admin: false };
        return undefined;
      case 'admin':
      case 'admin-project': {
        if (!caller) return errors.adminTokenRequired();
        let account = {};
        if (caller.kind === 'session') {
          const r = authorizeSession(ex, caller);
          if (r.error) return r.error;
          account = r.claims;
        }
        if (route.auth === 'admin') {
          ex.claims = { admin: true, clientIp: ex.ip, ...account };
          return undefined;
        }
        const pid = route.projectId ?? '';
        const project = isProjectIdString(pid) ? await opts.directory.byId(pid, ex.id) : null;
        if (!project) return errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
        ex.project = project;
        ex.claims = {
          admin: true,
          projectId: project.projectId,
          settings: project.settings,
          clientIp: ex.ip,
          ...account,
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
        // An address only for end-user auth (/api/userAuth/*): auth records sign-ins, failed
        // ones and refresh-token reuse in the audit log with it. Elsewhere none: no service
        // records one for a key's request, and an address makes the assertion one per client
        // instead of one per key (a signature here and a verification behind for every new
        // client; on auth routes that is small beside a sign-in's password hash). The per-address
        // limits are the gateway's own.
        ex.claims = {
          admin: false,
          projectId: project.projectId,
          keyType: project.keyType,
          settings: project.settings,
          ...(route.prefix.startsWith('/api/userAuth') ? { clientIp: ex.ip } : {}),
        };
        return undefined;
      }
    }
  }

  return { identifyAdmin, authenticate };
}
