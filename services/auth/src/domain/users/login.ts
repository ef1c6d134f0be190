import { isAppError, type ProjectId } from '@baas/common';
import type { LoginOutcome } from '../../ports';
import type { AuthDeps } from '../deps';
import { startSession, type IssuedTokens } from '../sessions/start-session';
import {
  appendUserSecurityEvent,
  userSecurityEntry,
  UNKNOWN_USER,
  type RequestOrigin,
} from '../audit/user-security-events';
import { authErrors } from './auth-errors';
import { normalizeEmail, type User } from './user';

export interface LoginInput {
  projectId: ProjectId;
  requireEmailVerification: boolean;
  email: string;
  password: string;
}

/**
 * Unknown email and wrong password fail alike: same error, and an unknown email still pays for
 * one argon2 verify so the timing does not tell them apart. Attempts per account (project +
 * email, existing or not) are throttled before anything is looked up or hashed: past the limit
 * the answer is 429 with Retry-After, for every account alike, until the window ends. Hashes made with weaker parameters
 * than configured are upgraded here, the only moment the password is known.
 *
 * The audit log gets `user.logged_in` for a sign-in (written with its session) and
 * `user.login_failed` for wrong credentials or an unverified email (with the email tried and
 * why), both with the client's address. Throttled attempts are not logged one by one (they cost
 * no lookup and no hash).
 */
export async function login(
  deps: AuthDeps,
  input: LoginInput,
  origin: RequestOrigin,
): Promise<{ user: User; tokens: IssuedTokens }> {
  const seen: { user?: User } = {};
  try {
    const out = await attempt(deps, input, origin, seen);
    deps.observer?.login('success');
    return out;
  } catch (e) {
    const outcome = loginOutcome(e);
    if (outcome === 'failure' || outcome === 'unverified')
      await appendUserSecurityEvent(deps.audit, {
        projectId: input.projectId,
        origin,
        action: 'user.login_failed',
        // wrong credentials prove nothing about who tried; an unverified user knew the password
        actor:
          outcome === 'unverified' && seen.user
            ? { type: 'end-user', id: seen.user.id }
            : { type: 'anonymous' },
        userId: seen.user?.id ?? UNKNOWN_USER,
        at: deps.clock(),
        details: {
          email: normalizeEmail(input.email),
          reason:
            outcome === 'unverified' ? 'email_not_verified' : seen.user ? 'wrong_password' : 'unknown_email',
        },
      });
    deps.observer?.login(outcome);
    throw e;
  }
}

/** How a failed login ended, from the error it ended with. */
export function loginOutcome(e: unknown): LoginOutcome {
  if (!isAppError(e)) return 'error';
  if (e.code === 'INVALID_CREDENTIALS') return 'failure';
  if (e.code === 'EMAIL_NOT_VERIFIED') return 'unverified';
  if (e.status === 429) return 'throttled';
  if (e.status === 503) return 'busy';
  return 'error';
}

async function attempt(
  deps: AuthDeps,
  input: LoginInput,
  origin: RequestOrigin,
  seen: { user?: User },
): Promise<{ user: User; tokens: IssuedTokens }> {
  const { projectId } = input;
  const email = normalizeEmail(input.email);
  const { retryAfterSeconds } = await deps.loginThrottle.attempt(projectId, email);
  if (retryAfterSeconds !== undefined) throw authErrors.loginThrottled(retryAfterSeconds);
  const user = await deps.users.findByEmail(projectId, email);
  if (user) seen.user = user;
  if (!user) {
    await deps.hasher.dummyVerify(input.password);
    throw authErrors.invalidCredentials();
  }
  if (!(await deps.hasher.verify(user.passwordHash, input.password))) throw authErrors.invalidCredentials();
  if (deps.hasher.needsRehash(user.passwordHash)) {
    const upgraded = await deps.hasher.hash(input.password);
    if (await deps.users.replacePasswordHash(projectId, user.id, user.passwordHash, upgraded, []))
      user.passwordHash = upgraded;
  }
  await deps.loginThrottle.succeeded(projectId, email);
  if (input.requireEmailVerification && !user.emailVerified) throw authErrors.emailNotVerified();
  // the sign-in's audit entry is written with its session: one statement on PostgreSQL
  const signedIn = userSecurityEntry({
    projectId,
    origin,
    action: 'user.logged_in',
    actor: { type: 'end-user', id: user.id },
    userId: user.id,
    at: deps.clock(),
  });
  return { user, tokens: await startSession(deps, projectId, user, signedIn) };
}
