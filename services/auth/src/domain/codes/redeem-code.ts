import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { digestsEqual } from '../crypto/secrets';
import { authErrors } from '../users/auth-errors';
import type { CodePurpose, User } from '../users/user';
import { otpDigest, tokenDigest } from './one-time-code';

export type CodeInput = { token: string } | { email: string; otp: string };

/**
 * Finds the user a code belongs to and checks it, without consuming it yet:
 * - `{ token }`: looked up by its digest (256 bits: guessing is hopeless);
 * - `{ email, otp }`: every try first takes one of the code's attempts atomically, then compares,
 *   so parallel guesses cannot exceed CODE_MAX_ATTEMPTS; after that the code is dead.
 * Every failure is the same 400 INVALID_CODE. Returns the token digest to consume the code with.
 */
export async function checkCode(
  deps: AuthDeps,
  projectId: ProjectId,
  purpose: CodePurpose,
  input: CodeInput,
): Promise<{ user: User; tokenHash: string }> {
  const now = deps.clock();
  if ('token' in input) {
    const tokenHash = tokenDigest(deps.secrets.codes, purpose, projectId, input.token);
    const user = await deps.users.findByCodeToken(projectId, purpose, tokenHash, now);
    const code = user?.codes[purpose];
    if (!user || !code || code.attempts >= deps.policy.codeMaxAttempts) throw authErrors.invalidCode();
    return { user, tokenHash };
  }
  const user = await deps.users.findByEmail(projectId, input.email);
  if (!user) throw authErrors.invalidCode();
  const code = await deps.users.reserveCodeAttempt(projectId, user.id, purpose, deps.policy.codeMaxAttempts, now);
  if (!code || !digestsEqual(code.otpHash, otpDigest(deps.secrets.codes, purpose, projectId, user.id, input.otp)))
    throw authErrors.invalidCode();
  return { user, tokenHash: code.tokenHash };
}
