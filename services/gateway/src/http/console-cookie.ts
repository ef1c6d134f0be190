import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { CONSOLE_CSRF_HEADER, CONSOLE_SESSION_COOKIE, csrfTokenFor } from '@baas/common';
import { header } from './exchange';

/** A session token as auth issues them (32 random bytes, base64url); anything else is no session. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{20,200}$/;

/** The `name=value` pairs of a Cookie header that are not the console session's. */
function otherCookies(cookie: string): string[] {
  return cookie
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c.length > 0 && c.slice(0, c.indexOf('=')).trim() !== CONSOLE_SESSION_COOKIE);
}

/** The console session token the request carries (its `baas_console` cookie), if it looks like one. */
export function consoleSessionToken(req: IncomingMessage): string | undefined {
  const cookie = req.headers.cookie;
  if (!cookie) return undefined;
  for (const pair of cookie.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== CONSOLE_SESSION_COOKIE) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return SESSION_TOKEN.test(value) ? value : undefined;
  }
  return undefined;
}

/** The Cookie header without the console session (undefined when nothing else is left). */
export function withoutConsoleCookie(cookie: string): string | undefined {
  const rest = otherCookies(cookie);
  return rest.length > 0 ? rest.join('; ') : undefined;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** `x-csrf-token` is the session's CSRF token (csrfTokenFor), compared in constant time. */
export function csrfTokenValid(req: IncomingMessage, sessionToken: string): boolean {
  const sent = header(req, CONSOLE_CSRF_HEADER);
  if (!sent) return false;
  return timingSafeEqual(digest(sent), digest(csrfTokenFor(sessionToken)));
}

/** Methods a browser may send cross-site without a preflight's consent, and that change nothing. */
export function needsCsrfToken(method: string): boolean {
  const m = method.toUpperCase();
  return m !== 'GET' && m !== 'HEAD' && m !== 'OPTIONS';
}

/**
 * No Origin header, or the gateway's own (the Host the client addressed, under either scheme,
 * default ports normalised). Another site's page, a sandboxed frame (`null`) or a request without
 * a Host are not the console.
 */
export function originIsOwn(req: IncomingMessage): boolean {
  const origin = header(req, 'origin');
  if (origin === undefined) return true;
  const host = header(req, 'host');
  if (!host) return false;
  try {
    const o = new URL(origin);
    if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
    if (o.origin !== origin.replace(/\/$/, '')) return false;
    return o.host === new URL(`${o.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
