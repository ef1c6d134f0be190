import { Router, type Request, type Response } from 'express';
import { bearerToken, errors, jsonBody, parseInput, tenantContext } from '@baas/common';
import type { AuthDeps } from '../domain/deps';
import type { ProjectRepository } from '../ports';
import type { IssuedTokens } from '../domain/sessions/start-session';
import { signup } from '../domain/users/signup';
import { login } from '../domain/users/login';
import { authenticate } from '../domain/sessions/authenticate';
import { rotateSession } from '../domain/sessions/rotate-session';
import { endSession } from '../domain/sessions/end-session';
import { updateProfile } from '../domain/users/update-profile';
import { changePassword } from '../domain/users/change-password';
import { publicProfile } from '../domain/users/public-profile';
import { requestPasswordReset } from '../domain/codes/request-code';
import { verifyEmail } from '../domain/codes/verify-email';
import { resetPassword } from '../domain/codes/reset-password';
import type { RequestOrigin } from '../domain/audit/user-security-events';
import { authErrors } from '../domain/users/auth-errors';
import { selfView, type User } from '../domain/users/user';
import { clearRefreshCookie, isHeaderMode, presentedRefreshToken, setRefreshCookie } from './refresh-cookie';
import {
  codeInputSchema,
  loginSchema,
  parseSignupBody,
  resetPasswordSchema,
  changePasswordSchema,
  emailOnlySchema,
} from './user-auth.schemas';

interface LiveSettings {
  publicSignups: boolean;
  requireEmailVerification: boolean;
}

/** Where the request came from, for the audit log: the address the gateway asserted (if any). */
function originOf(req: Request, ctx: { requestId: string }): RequestOrigin {
  return { clientIp: req.assertion?.clientIp ?? null, requestId: ctx.requestId };
}

function bodyObject(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    throw errors.validation('Request body must be a JSON object');
  return b as Record<string, unknown>;
}

/** The /api/userAuth/* endpoints of the spec (the gateway has resolved the project key). */
export function userAuthRoutes(deps: AuthDeps, projects: Pick<ProjectRepository, 'findById'>): Router {
  const r = Router();
  // The gateway may serve a project from its cache for a moment after a change (invalidation is
  // asynchronous); the auth service owns projects, so it refuses a deleted one at once and takes
  // the signup settings from its own copy.
  r.use(async (req, res, next) => {
    const project = await projects.findById(tenantContext(req).projectId);
    if (!project) return next(errors.invalidApiKey());
    const live: LiveSettings = {
      publicSignups: project.settings.publicSignups ?? true,
      requireEmailVerification: project.settings.requireEmailVerification ?? false,
    };
    res.locals.settings = live;
    next();
  });
  const settingsOf = (res: Response) => res.locals.settings as LiveSettings;
  r.use(jsonBody('16kb'));
  r.use((_req, res, next) => {
    // Responses carry tokens and personal data.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  /** Signup, login and refresh: the token pair, the refresh token by cookie or in the body. */
  const sendTokens = (
    req: Request,
    res: Response,
    status: number,
    tokens: IssuedTokens,
    extra: Record<string, unknown>,
  ) => {
    const header = isHeaderMode(req);
    if (!header) setRefreshCookie(req, res, tokens.refreshToken, deps.policy.refreshTokenTtlSeconds);
    res.status(status).json({
      success: true,
      ...extra,
      accessToken: tokens.accessToken,
      token: tokens.accessToken,
      expiresIn: tokens.expiresIn,
      ...(header ? { refreshToken: tokens.refreshToken } : {}),
    });
  };
  const userBody = (user: User, message: string) => ({
    success: true,
    message,
    data: selfView(user),
    user: selfView(user),
  });

  r.post('/signup', async (req, res) => {
    const ctx = tenantContext(req);
    const input = parseSignupBody(bodyObject(req));
    const out = await signup(deps, {
      projectId: ctx.projectId,
      requestId: ctx.requestId,
      publicSignups: settingsOf(res).publicSignups,
      requireEmailVerification: settingsOf(res).requireEmailVerification,
      ...input,
    });
    const view = selfView(out.user);
    if (!out.tokens) {
      res.status(201).json({
        success: true,
        message: 'User registered; verify the email address to log in',
        user: view,
        emailVerificationRequired: true,
      });
      return;
    }
    sendTokens(req, res, 201, out.tokens, { message: 'User registered', user: view });
  });

  r.post('/login', async (req, res) => {
    const ctx = tenantContext(req);
    const input = parseInput(loginSchema, bodyObject(req));
    const out = await login(
      deps,
      {
        projectId: ctx.projectId,
        requireEmailVerification: settingsOf(res).requireEmailVerification,
        ...input,
      },
      originOf(req, ctx),
    );
    sendTokens(req, res, 200, out.tokens, { message: 'Logged in', user: selfView(out.user) });
  });

  r.post('/refresh-token', async (req, res) => {
    const ctx = tenantContext(req);
    const token = presentedRefreshToken(req);
    if (!token) throw authErrors.refreshTokenRequired();
    try {
      const tokens = await rotateSession(deps, ctx.projectId, token, originOf(req, ctx));
      sendTokens(req, res, 200, tokens, { message: 'Token refreshed' });
    } catch (e) {
      if (!isHeaderMode(req)) clearRefreshCookie(req, res);
      throw e;
    }
  });

  r.post('/logout', async (req, res) => {
    const ctx = tenantContext(req);
    const token = presentedRefreshToken(req);
    clearRefreshCookie(req, res);
    if (!token) throw authErrors.refreshTokenRequired();
    await endSession(deps, ctx.projectId, token);
    res.json({ success: true, message: 'Logged out' });
  });

  r.get('/me', async (req, res) => {
    const ctx = tenantContext(req);
    const { user } = await authenticate(deps, ctx.projectId, bearerToken(req));
    res.json(userBody(user, 'Current user'));
  });

  r.get('/public/:username', async (req, res) => {
    const ctx = tenantContext(req);
    const username = req.params.username ?? '';
    if (username.length === 0 || username.length > 256) throw authErrors.userNotFound();
    const view = await publicProfile(deps, ctx.projectId, username);
    res.json({ success: true, message: 'Public profile', data: view, user: view });
  });

  r.put('/update-profile', async (req, res) => {
    const ctx = tenantContext(req);
    const caller = await authenticate(deps, ctx.projectId, bearerToken(req));
    const user = await updateProfile(deps, ctx.projectId, caller.user, bodyObject(req), ctx.requestId);
    res.json(userBody(user, 'Profile updated'));
  });

  r.put('/change-password', async (req, res) => {
    const ctx = tenantContext(req);
    const caller = await authenticate(deps, ctx.projectId, bearerToken(req));
    const input = parseInput(changePasswordSchema, bodyObject(req));
    await changePassword(deps, ctx.projectId, caller, input, originOf(req, ctx));
    res.json({ success: true, message: 'Password changed; other sessions have been signed out' });
  });

  r.post('/verify-email', async (req, res) => {
    const ctx = tenantContext(req);
    const input = parseInput(codeInputSchema, bodyObject(req));
    await verifyEmail(deps, ctx.projectId, input, ctx.requestId);
    res.json({ success: true, message: 'Email verified' });
  });

  r.post('/request-password-reset', async (req, res) => {
    const ctx = tenantContext(req);
    const { email } = parseInput(emailOnlySchema, bodyObject(req));
    await requestPasswordReset(deps, ctx.projectId, email, ctx.requestId);
    res.json({ success: true, message: 'If an account exists for this email, a reset email has been sent' });
  });

  r.post('/reset-password', async (req, res) => {
    const ctx = tenantContext(req);
    const { newPassword, ...code } = parseInput(resetPasswordSchema, bodyObject(req));
    await resetPassword(deps, ctx.projectId, code, newPassword, originOf(req, ctx));
    res.json({ success: true, message: 'Password reset; please log in again' });
  });

  return r;
}
