import type { Request, Response } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';

/**
 * The contract's refresh cookie: `refreshToken`, HttpOnly, Path=/api/userAuth, SameSite=Lax,
 * Secure when the client reached us over https (first X-Forwarded-Proto hop, set by the edge).
 * Header mode (`x-refresh-token-mode: header`) gets the token in the body instead.
 */
export const REFRESH_COOKIE = 'refreshToken';
const COOKIE_PATH = '/api/userAuth';

export function isHeaderMode(req: Request): boolean {
  return (req.header('x-refresh-token-mode') ?? '').trim().toLowerCase() === 'header';
}

/** The client reached us over https (the first X-Forwarded-Proto hop, set by the edge). */
export function overHttps(req: Request): boolean {
  const first = (req.header('x-forwarded-proto') ?? '').split(',')[0]?.trim().toLowerCase();
  return req.secure || first === 'https';
}

export function setRefreshCookie(req: Request, res: Response, token: string, maxAgeSeconds: number): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(REFRESH_COOKIE, token, {
      httpOnly: true,
      path: COOKIE_PATH,
      sameSite: 'lax',
      secure: overHttps(req),
      maxAge: maxAgeSeconds,
    }),
  );
}

export function clearRefreshCookie(req: Request, res: Response): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(REFRESH_COOKIE, '', {
      httpOnly: true,
      path: COOKIE_PATH,
      sameSite: 'lax',
      secure: overHttps(req),
      maxAge: 0,
      expires: new Date(0),
    }),
  );
}

/** The presented refresh token: x-refresh-token header, then a JSON body field, then the cookie. */
export function presentedRefreshToken(req: Request): string | undefined {
  const header = req.header('x-refresh-token')?.trim();
  if (header) return header;
  const body = (req.body as { refreshToken?: unknown } | undefined)?.refreshToken;
  if (typeof body === 'string' && body.length > 0) return body;
  const cookies = parseCookie(req.header('cookie') ?? '');
  return cookies[REFRESH_COOKIE] || undefined;
}
