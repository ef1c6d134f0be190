import { createEvent, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from '../users/auth-errors';
import { checkCode, claimCodeUse, type CodeInput } from './redeem-code';

/** Marks the email verified and burns the code, in one write (with user.updated). */
export async function verifyEmail(
  deps: AuthDeps,
  projectId: ProjectId,
  input: CodeInput,
  requestId: string,
): Promise<void> {
  const { user, tokenHash } = await checkCode(deps, projectId, 'verify_email', input);
  await claimCodeUse(deps, projectId, user, 'verify_email', tokenHash);
  const event = createEvent(
    'user.updated',
    projectId,
    { userId: user.id, changed: ['emailVerified'] },
    { requestId },
  );
  const done = await deps.users.consumeCode(
    projectId,
    user.id,
    'verify_email',
    tokenHash,
    { emailVerified: true },
    [event],
  );
  if (!done) throw authErrors.invalidCode();
}
