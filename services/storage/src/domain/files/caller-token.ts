import { errors, type ProjectId } from '@baas/common';
import type { FileDeps } from './deps';

/**
 * Storage is authorized by the project key; a Bearer token is optional. One that is sent is
 * checked all the same (signature, expiry, revocation): a client whose session ended or whose
 * account was deleted gets 401, as at the data service, instead of acting on a dead login.
 */
export async function checkCallerToken(
  deps: FileDeps,
  projectId: ProjectId,
  bearer: string | undefined,
): Promise<void> {
  if (bearer === undefined) return;
  if (!deps.tokens) throw errors.unauthorized('INVALID_TOKEN', 'Invalid or expired access token');
  await deps.tokens.verify(bearer, projectId);
}
