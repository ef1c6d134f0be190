import { createHash } from 'node:crypto';

/**
 * Console accounts: people who sign in to the web console (or call the admin API with a console
 * session) and reach only the projects they are granted. Shared by the auth service (which owns
 * accounts, memberships, sessions and invitations) and the gateway (which resolves a session
 * cookie and enforces roles before any admin route runs).
 */

/** Roles on one project, weakest first. Platform admins (an account flag) see everything. */
export const CONSOLE_ROLES = ['viewer', 'developer', 'owner'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export function roleAtLeast(role: ConsoleRole, needed: ConsoleRole): boolean {
  return CONSOLE_ROLES.indexOf(role) >= CONSOLE_ROLES.indexOf(needed);
}

/** The session cookie: HttpOnly, SameSite=Strict, Path=/api, Secure over https. */
export const CONSOLE_SESSION_COOKIE = 'baas_console';
export const CONSOLE_SESSION_COOKIE_PATH = '/api';
/** State-changing requests made with the session cookie carry this header (see csrfTokenFor). */
export const CONSOLE_CSRF_HEADER = 'x-csrf-token';

/** What the console's session token is stored and looked up as (never the token itself). */
export function consoleSessionTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session, derived from its (secret, HttpOnly) token: a page on another site
 * can neither read the cookie nor this value, so a request carrying it came from the console.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`baas-console-csrf\0${sessionToken}`, 'utf8').digest('base64url');
}

export interface ConsoleMembership {
  projectId: string;
  role: ConsoleRole;
}

/**
 * What the auth service answers the gateway for a live session
 * (`POST /internal/console/sessions/resolve` with `{ tokenHash }`; 401 CONSOLE_SESSION_INVALID
 * when it is unknown, expired or revoked).
 */
export interface ConsoleSessionResolution {
  sessionId: string;
  accountId: string;
  email: string;
  platformAdmin: boolean;
  memberships: ConsoleMembership[];
  /** ISO-8601. */
  expiresAt: string;
}

/**
 * Core NATS subject on which auth announces `{ accountId }` when an account's sessions,
 * memberships or flags change (sign-out, revocation, role change, removal, deletion), so every
 * gateway drops what it cached for it at once.
 */
export const CONSOLE_INVALIDATION_SUBJECT = 'baas.console.invalidate';

/** The console account behind an admin request, as the gateway asserts it (claim `acct`). */
export interface ConsoleActorClaim {
  id: string;
  email: string;
  platformAdmin: boolean;
}
