import {
  CONSOLE_SESSION_COOKIE,
  type ConsoleActorClaim,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import type { Harness } from './harness';

/** Helpers of the console suites (accounts, sessions, members), on any harness. */

export const PASSWORD = 'console-password-1';

export function uniqueEmail(prefix = 'acct'): string {
  return `${prefix}-${Math.random().toString(36).slice(2)}@example.com`;
}

/** A valid, unique address of exactly `n` characters (local part 64, labels of at most 63). */
export function emailOfLength(n: number): string {
  const local = `${Math.random().toString(36).slice(2, 8).padEnd(6, 'x')}${'a'.repeat(58)}`;
  let rest = n - local.length - 1 - '.io'.length; // the domain labels joined by dots
  const labels: string[] = [];
  while (rest > 0) {
    let len = Math.min(63, rest);
    if (rest - len === 1) len -= 1; // never leave room for a dot and nothing after it
    labels.push('d'.repeat(len));
    rest -= len;
    if (rest > 0) rest -= 1;
  }
  return `${local}@${labels.join('.')}.io`;
}

/** The console session cookie set by a response ('' when cleared, undefined when not set). */
export function consoleCookie(headers: Headers): string | undefined {
  for (const c of headers.getSetCookie()) {
    const m = new RegExp(`^${CONSOLE_SESSION_COOKIE}=([^;]*)`).exec(c);
    if (m) return m[1];
  }
  return undefined;
}

export function setCookieLine(headers: Headers): string | undefined {
  return headers.getSetCookie().find((c) => c.startsWith(`${CONSOLE_SESSION_COOKIE}=`));
}

export interface SignedIn {
  token: string;
  csrf: string;
  accountId: string;
  /** Headers of a cookie request; `csrf: true` adds the CSRF header. */
  headers(csrf?: boolean): Record<string, string>;
}

export function session(token: string, csrf: string, accountId: string): SignedIn {
  return {
    token,
    csrf,
    accountId,
    headers: (withCsrf = false) => ({
      cookie: `${CONSOLE_SESSION_COOKIE}=${token}`,
      ...(withCsrf ? { 'x-csrf-token': csrf } : {}),
    }),
  };
}

/** A console account made by the platform admin token. */
export async function createAccount(
  h: Harness,
  opts: { email?: string; password?: string; platformAdmin?: boolean } = {},
): Promise<{ id: string; email: string; password: string }> {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? PASSWORD;
  const r = await h.call('POST', '/api/admin/console/accounts', {
    admin: true,
    body: {
      email,
      password,
      ...(opts.platformAdmin !== undefined ? { platformAdmin: opts.platformAdmin } : {}),
    },
  });
  if (r.status !== 201) throw new Error(`account not created: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id as string, email, password };
}

export async function signIn(h: Harness, email: string, password: string = PASSWORD): Promise<SignedIn> {
  const r = await h.call('POST', '/api/console/login', { body: { email, password } });
  if (r.status !== 200) throw new Error(`not signed in: ${r.status} ${JSON.stringify(r.body)}`);
  const token = consoleCookie(r.headers);
  if (!token) throw new Error('no session cookie');
  return session(token, r.body.data.csrfToken as string, r.body.data.account.id as string);
}

/** What the gateway asserts for a request made with an account's session. */
export function actor(a: { id: string; email: string }, platformAdmin = false): ConsoleActorClaim {
  return { id: a.id, email: a.email, platformAdmin };
}

/** The link token of the newest published console event of `type` to `email`, opened as mail would. */
export async function mailedToken(
  h: Harness,
  type: 'console.invitation_requested' | 'console.password_reset_requested',
  email: string,
): Promise<string> {
  await h.relay.flush();
  const e = [...h.published]
    .reverse()
    .find((x) => x.type === type && (x.data as { email?: string }).email === email);
  if (!e) throw new Error(`no ${type} for ${email}`);
  return h.consoleToken(e);
}

/**
 * The distinct events of `type` to `email` published so far (the relay publishes at least once:
 * JetStream drops a repeated event id).
 */
export function eventsOf(h: Harness, type: string, email: string): EventEnvelope[] {
  const byId = new Map<string, EventEnvelope>();
  for (const x of h.published)
    if (x.type === type && (x.data as { email?: string }).email === email) byId.set(x.id, x);
  return [...byId.values()];
}

/** Invites `email` to the project as the platform admin token; the invitation's link token. */
export async function invite(
  h: Harness,
  projectId: ProjectId,
  email: string,
  role: 'viewer' | 'developer' | 'owner',
): Promise<string> {
  const r = await h.call('POST', `/api/admin/projects/${projectId}/members`, {
    admin: true,
    projectId,
    body: { email, role },
  });
  if (r.status !== 201) throw new Error(`not invited: ${r.status} ${JSON.stringify(r.body)}`);
  return mailedToken(h, 'console.invitation_requested', email);
}

/** A new account holding `role` on the project (invited and accepted with a password), signed in. */
export async function member(
  h: Harness,
  projectId: ProjectId,
  role: 'viewer' | 'developer' | 'owner',
  email: string = uniqueEmail(role),
): Promise<SignedIn & { email: string }> {
  const token = await invite(h, projectId, email, role);
  const r = await h.call('POST', '/api/console/invitations/accept', { body: { token, password: PASSWORD } });
  if (r.status !== 200) throw new Error(`not accepted: ${r.status} ${JSON.stringify(r.body)}`);
  const cookie = consoleCookie(r.headers);
  if (!cookie) throw new Error('no session cookie');
  return { ...session(cookie, r.body.data.csrfToken as string, r.body.data.account.id as string), email };
}
