import createClient from 'openapi-fetch';
import { ok, type ApiPaths } from '../api/client';
import { ApiError } from '../api/errors';
import type { SessionView } from '../api/types';
import { EVERYTHING, type Access, type Role } from './roles';

/**
 * Who the console acts as: a console account's cookie session, or the platform admin token.
 *
 * - An account session lives in the `baas_console` cookie (HttpOnly, SameSite=Strict, Path=/api),
 *   which this code never sees: requests send it (`credentials: 'same-origin'`), and every
 *   state-changing one carries the session's CSRF token in `x-csrf-token` (the gateway and auth
 *   refuse it otherwise). Signing out ends the session on the server.
 * - The token is typed in at sign-in and kept in this tab's memory only (never localStorage,
 *   sessionStorage or a cookie: a reload asks again), sent as `Authorization: Bearer`.
 *
 * The pages only ever see this interface, through the API client.
 */
export interface ConsoleSession {
  /** What the shell says about who is signed in. */
  readonly label: string;
  /** The account, for an account session (undefined: the platform admin token). */
  readonly account: SessionView['account'] | undefined;
  /** The projects this session reaches and its role on each. */
  readonly access: Access;
  /** The names of the projects an account has a role on, as at sign-in. */
  readonly projectNames: ReadonlyMap<string, string>;
  /** How requests carry cookies: none for the token, the session cookie for an account. */
  readonly credentials: RequestCredentials;
  /** The request with the session's credentials added. */
  authorize(request: Request): Request;
  /**
   * The CSRF header, for the routes whose documented parameters name it (`/api/console/password`;
   * the API client's middleware adds it to every state-changing call anyway). Empty for the token.
   */
  csrfHeader(): { [CSRF_HEADER]: string };
  /** Forgets the credentials (an account session also ends itself on the server). */
  end(): Promise<void>;
}

/** Must match CONSOLE_CSRF_HEADER of @baas/common (which the browser bundle does not import). */
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The platform admin token, held by this closure and nowhere else. */
export function adminTokenSession(token: string): ConsoleSession {
  let held: string | undefined = token;
  return {
    label: 'Platform admin (token)',
    account: undefined,
    access: EVERYTHING,
    projectNames: new Map(),
    credentials: 'omit',
    authorize(request) {
      if (held === undefined) return request;
      request.headers.set('Authorization', `Bearer ${held}`);
      return request;
    },
    csrfHeader: () => ({ [CSRF_HEADER]: '' }),
    end() {
      held = undefined;
      return Promise.resolve();
    },
  };
}

/**
 * The console's calls to /api/console before a session exists (sign-in, invitations, password
 * reset): same origin, cookies sent and stored, no credentials of a session added.
 */
export function publicClient() {
  return createClient<ApiPaths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
}

/** An account's cookie session, from the view the login, accept or session answer gave. */
export function accountSession(view: SessionView): ConsoleSession {
  let csrf: string | undefined = view.csrfToken;
  const roles = new Map<string, Role>(view.memberships.map((m) => [m.projectId, m.role]));
  return {
    label: view.account.email,
    account: view.account,
    access: { platform: view.account.platformAdmin, roles },
    projectNames: new Map(view.memberships.map((m) => [m.projectId, m.projectName])),
    credentials: 'same-origin',
    authorize(request) {
      if (csrf !== undefined && !SAFE_METHODS.has(request.method.toUpperCase()))
        request.headers.set(CSRF_HEADER, csrf);
      return request;
    },
    csrfHeader: () => ({ [CSRF_HEADER]: csrf ?? '' }),
    async end() {
      const token = csrf;
      csrf = undefined;
      if (token === undefined) return;
      // Best effort: an expired or revoked session has nothing left to end.
      await publicClient()
        .POST('/api/console/logout', { params: { header: { [CSRF_HEADER]: token } } })
        .catch(() => undefined);
    },
  };
}

/** Signs in with an account's email and password. */
export async function signInWithPassword(email: string, password: string): Promise<ConsoleSession> {
  const view = await ok(publicClient().POST('/api/console/login', { body: { email, password } }));
  return accountSession(view.data);
}

/**
 * The session the browser's cookie still holds (a reload, a new tab), or undefined when there is
 * none (401). Other failures (the gateway unreachable) are thrown.
 */
export async function restoreSession(): Promise<ConsoleSession | undefined> {
  try {
    const view = await ok(publicClient().GET('/api/console/session'));
    return accountSession(view.data);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return undefined;
    throw e;
  }
}

/** Accepts an invitation (with the new account's password when there is no account yet). */
export async function acceptInvitation(token: string, password?: string): Promise<ConsoleSession> {
  const view = await ok(
    publicClient().POST('/api/console/invitations/accept', {
      body: password === undefined ? { token } : { token, password },
    }),
  );
  return accountSession(view.data);
}
