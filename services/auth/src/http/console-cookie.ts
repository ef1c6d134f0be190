import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';
import {
  CONSOLE_CSRF_HEADER,
  CONSOLE_SESSION_COOKIE,
  CONSOLE_SESSION_COOKIE_PATH,
  csrfTokenFor,
} from '@baas/common';
import { consoleErrors } from '../domain/console/console-errors';
import { overHttps } from './refresh-cookie';

/**
 * The console session cookie: `baas_console`, HttpOnly, SameSite=Strict, Path=/api (the console
 * calls the admin API with it too), Secure when the client came over https, Max-Age the session's
 * remaining lifetime.
 */
export function setConsoleCookie(
  req: Request,
  res: Response,
  token: string,
  expiresAt: Date,
  now: Date,
): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(CONSOLE_SESSION_COOKIE, token, {
      httpOnly: true,
      path: CONSOLE_SESSION_COOKIE_PATH,
      sameSite: 'strict',
      secure: overHttps(req),
      maxAge: Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)),
    }),
  );
}

export function clearConsoleCookie(req: Request, res: Response): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(CONSOLE_SESSION_COOKIE, '', {
      httpOnly: true,
      path: CONSOLE_SESSION_COOKIE_PATH,
      sameSite: 'strict',
      secure: overHttps(req),
      maxAge: 0,
      expires: new Date(0),
    }),
  );
}

/** The session token the cookie carries, if any. */
export function presentedConsoleToken(req: Request): string | undefined {
  const cookies = parseCookie(req.header('cookie') ?? '');
  return cookies[CONSOLE_SESSION_COOKIE] || undefined;
}

/**
 * A state-changing request made with the cookie must carry `x-csrf-token` equal to the
 * session's CSRF token (which a page of another site can neither read nor compute): 403
 * CSRF_TOKEN_INVALID otherwise.
 */
export function requireCsrf(req: Request, token: string): void {
  const sent = Buffer.from(req.header(CONSOLE_CSRF_HEADER) ?? '', 'utf8');
  const expected = Buffer.from(csrfTokenFor(token), 'utf8');
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    throw consoleErrors.csrfTokenInvalid();
}
