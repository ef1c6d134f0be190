import { isAppError } from '@baas/common';
import { CONSOLE_LOGIN_REALM, type ConsoleLoginOutcome } from '../../ports';
import { authErrors } from '../users/auth-errors';
import { normalizeEmail } from '../users/user';
import type { ConsoleDeps } from './deps';
import { startConsoleSession, type ClientInfo, type SignedIn } from './start-session';

/**
 * Console sign-in, as end-user login works: attempts per account (normalized email, existing or
 * not) are throttled before anything is looked up or hashed (429 with Retry-After past the
 * limit); an unknown email and a wrong password give the same 401 INVALID_CREDENTIALS after the
 * same argon2 work; a hash made with weaker parameters than configured is upgraded here.
 */
export async function consoleLogin(
  deps: ConsoleDeps,
  input: { email: string; password: string } & ClientInfo,
): Promise<SignedIn> {
  try {
    const out = await attempt(deps, input);
    deps.observer?.login('success');
    return out;
  } catch (e) {
    deps.observer?.login(consoleLoginOutcome(e));
    throw e;
  }
}

/** How a failed sign-in ended, from the error it ended with. */
export function consoleLoginOutcome(e: unknown): ConsoleLoginOutcome {
  if (!isAppError(e)) return 'error';
  if (e.code === 'INVALID_CREDENTIALS') return 'failure';
  if (e.status === 429) return 'throttled';
  if (e.status === 503) return 'busy';
  return 'error';
}

async function attempt(
  deps: ConsoleDeps,
  input: { email: string; password: string } & ClientInfo,
): Promise<SignedIn> {
  const email = normalizeEmail(input.email);
  const { retryAfterSeconds } = await deps.loginThrottle.attempt(CONSOLE_LOGIN_REALM, email);
  if (retryAfterSeconds !== undefined) throw authErrors.loginThrottled(retryAfterSeconds);
  const account = await deps.accounts.findByEmail(email);
  if (!account) {
    await deps.hasher.dummyVerify(input.password);
    throw authErrors.invalidCredentials();
  }
  if (!(await deps.hasher.verify(account.passwordHash, input.password)))
    throw authErrors.invalidCredentials();
  if (deps.hasher.needsRehash(account.passwordHash)) {
    const upgraded = await deps.hasher.hash(input.password);
    if (await deps.accounts.replacePasswordHash(account.id, account.passwordHash, upgraded, deps.clock()))
      account.passwordHash = upgraded;
  }
  await deps.loginThrottle.succeeded(CONSOLE_LOGIN_REALM, email);
  return startConsoleSession(deps, account, input);
}
