import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { digestsEqual, keyGenerations } from '../crypto/secrets';
import { authErrors } from '../users/auth-errors';
import type { CodePurpose, User } from '../users/user';
import { otpDigest, tokenDigest } from './one-time-code';

export type CodeInput = { token: string } | { email: string; otp: string };

/**
 * Finds the user a code belongs to and checks it, without consuming it yet:
 * - `{ token }`: looked up by its digest (256 bits: guessing is hopeless);
 * - `{ email, otp }`: every try first takes one of the code's attempts (race-free), then
 *   compares, so parallel guesses cannot exceed CODE_MAX_ATTEMPTS; after that the code is dead
 *   in both forms.
 * Every failure is the same 400 INVALID_CODE. Returns the token digest, which identifies the code.
 */
export async function checkCode(
  deps: AuthDeps,
  projectId: ProjectId,
  purpose: CodePurpose,
  input: CodeInput,
): Promise<{ user: User; tokenHash: string }> {
  const now = deps.clock();
  const max = deps.policy.codeMaxAttempts;
  if ('token' in input) {
    // made with AUTH_SECRET, or before its rotation with AUTH_SECRET_PREVIOUS
    for (const keys of keyGenerations(deps.secrets)) {
      const tokenHash = tokenDigest(keys.codes, purpose, projectId, input.token);
      const user = await deps.users.findByCodeToken(projectId, purpose, tokenHash, now);
      if (!user) continue;
      if (await deps.claims.exhausted(projectId, tokenHash, max)) throw authErrors.invalidCode();
      return { user, tokenHash };
    }
    throw authErrors.invalidCode();
  }
  const user = await deps.users.findByEmail(projectId, input.email);
  const code = user?.codes[purpose];
  if (!user || !code || code.expiresAt <= now) throw authErrors.invalidCode();
  if (!(await deps.claims.reserveAttempt(projectId, code.tokenHash, max, code.expiresAt)))
    throw authErrors.invalidCode();
  const matches = keyGenerations(deps.secrets).some((keys) =>
    digestsEqual(code.otpHash, otpDigest(keys.codes, purpose, projectId, user.id, input.otp)),
  );
  if (!matches) throw authErrors.invalidCode();
  return { user, tokenHash: code.tokenHash };
}

/** Single use: exactly one caller consumes a code, whatever FerretDB does with racing updates. */
export async function claimCodeUse(
  deps: AuthDeps,
  projectId: ProjectId,
  user: User,
  purpose: CodePurpose,
  tokenHash: string,
): Promise<void> {
  const expiresAt = user.codes[purpose]?.expiresAt ?? deps.clock();
  if (!(await deps.claims.claimUse(projectId, tokenHash, expiresAt))) throw authErrors.invalidCode();
}
