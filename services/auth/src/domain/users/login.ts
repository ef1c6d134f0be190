import { isAppError, type ProjectId } from '@baas/common';
import type { LoginOutcome } from '../../ports';
import type { AuthDeps } from '../deps';
import { startSession, type IssuedTokens } from '../sessions/start-session';
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
 */
export async function login(
  deps: AuthDeps,
  input: LoginInput,
): Promise<{ user: User; tokens: IssuedTokens }> {
  try {
    const out = await attempt(deps, input);
    deps.observer?.login('success');
    return out;
  } catch (e) {
    deps.observer?.login(loginOutcome(e));
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

async function attempt(deps: AuthDeps, input: LoginInput): Promise<{ user: User; tokens: IssuedTokens }> {
  const { projectId } = input;
  const email = normalizeEmail(input.email);
  const { retryAfterSeconds } = await deps.loginThrottle.attempt(projectId, email);
  if (retryAfterSeconds !== undefined) throw authErrors.loginThrottled(retryAfterSeconds);
  const user = await deps.users.findByEmail(projectId, email);
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
  return { user, tokens: await startSession(deps, projectId, user) };
}
