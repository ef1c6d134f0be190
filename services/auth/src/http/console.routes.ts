import { Router, type Request, type Response } from 'express';
import { jsonBody, parseInput } from '@baas/common';
import type { ConsoleDeps } from '../domain/console/deps';
import type { ClientInfo, SignedIn } from '../domain/console/start-session';
import { consoleLogin } from '../domain/console/login';
import { consoleCaller } from '../domain/console/authenticate';
import { getConsoleSession } from '../domain/console/get-session';
import { consoleLogout } from '../domain/console/logout';
import { changeConsolePassword } from '../domain/console/change-password';
import { requestConsolePasswordReset } from '../domain/console/request-password-reset';
import { resetConsolePassword } from '../domain/console/reset-password';
import { inspectInvitation } from '../domain/console/inspect-invitation';
import { acceptInvitation } from '../domain/console/accept-invitation';
import { consoleErrors } from '../domain/console/console-errors';
import { clearConsoleCookie, presentedConsoleToken, requireCsrf, setConsoleCookie } from './console-cookie';
import {
  acceptInvitationSchema,
  consoleLoginSchema,
  consolePasswordSchema,
  consoleResetRequestSchema,
  consoleResetSchema,
  invitationTokenSchema,
} from './console.schemas';

function client(req: Request): ClientInfo {
  return { clientIp: req.assertion?.clientIp ?? null, userAgent: req.header('user-agent') };
}

/**
 * The console's own endpoints, `/api/console/*` (gateway: public, the stricter auth limiter):
 * sign-in with email and password into a cookie session, the session, sign-out, password change
 * and reset, and invitations. Sign-out and password change are state-changing requests made with
 * the cookie, so they need the session's CSRF token (x-csrf-token), checked here.
 */
export function consoleRoutes(deps: ConsoleDeps): Router {
  const r = Router();
  r.use(jsonBody('16kb'));
  r.use((_req, res, next) => {
    // Answers carry session tokens (in cookies) and CSRF tokens.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const signedIn = (req: Request, res: Response, out: SignedIn, message: string) => {
    setConsoleCookie(req, res, out.token, out.expiresAt, deps.clock());
    res.json({ success: true, data: out.view, message });
  };

  r.post('/login', async (req, res) => {
    const input = parseInput(consoleLoginSchema, req.body);
    signedIn(req, res, await consoleLogin(deps, { ...input, ...client(req) }), 'Signed in');
  });

  r.get('/session', async (req, res) => {
    const view = await getConsoleSession(deps, presentedConsoleToken(req));
    res.json({ success: true, data: view, message: 'Console session' });
  });

  r.post('/logout', async (req, res) => {
    const token = presentedConsoleToken(req);
    if (!token) throw consoleErrors.sessionRequired();
    requireCsrf(req, token);
    await consoleLogout(deps, token);
    clearConsoleCookie(req, res);
    res.json({ success: true, data: {}, message: 'Signed out' });
  });

  r.post('/password', async (req, res) => {
    const token = presentedConsoleToken(req);
    if (!token) throw consoleErrors.sessionRequired();
    requireCsrf(req, token);
    const caller = await consoleCaller(deps, token);
    const input = parseInput(consolePasswordSchema, req.body);
    const data = await changeConsolePassword(deps, caller, input);
    res.json({ success: true, data, message: 'Password changed; other sessions have been signed out' });
  });

  r.post('/password-reset/request', async (req, res) => {
    const { email } = parseInput(consoleResetRequestSchema, req.body);
    await requestConsolePasswordReset(deps, email, req.assertion?.requestId ?? req.id);
    res.status(202).json({
      success: true,
      data: {},
      message: 'If a console account has this email, a reset link has been sent',
    });
  });

  r.post('/password-reset', async (req, res) => {
    const input = parseInput(consoleResetSchema, req.body);
    await resetConsolePassword(deps, input);
    res.json({ success: true, data: {}, message: 'Password reset; please sign in again' });
  });

  r.post('/invitations/inspect', async (req, res) => {
    const { token } = parseInput(invitationTokenSchema, req.body);
    res.json({ success: true, data: await inspectInvitation(deps, token), message: 'Invitation' });
  });

  r.post('/invitations/accept', async (req, res) => {
    const input = parseInput(acceptInvitationSchema, req.body);
    signedIn(req, res, await acceptInvitation(deps, { ...input, ...client(req) }), 'Invitation accepted');
  });

  return r;
}
