import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from '../users/auth-errors';
import type { User } from '../users/user';

export interface Authenticated {
  user: User;
  sessionId: string;
}

/**
 * The caller of a Bearer-protected auth endpoint. Beyond the token itself (signature, alg, iss,
 * aud = this project, typ, expiry), the auth service checks its own state: the session was not
 * ended (logout, password change, reuse) and the user still exists.
 */
export async function authenticate(
  deps: AuthDeps,
  projectId: ProjectId,
  token: string | undefined,
): Promise<Authenticated> {
  if (!token) throw authErrors.tokenRequired();
  const principal = await deps.verifier.verify(token, projectId);
  const family = await deps.sessions.findFamily(projectId, principal.sessionId);
  if (!family || family.revokedAt || family.userId !== principal.userId)
    throw authErrors.invalidToken('Session has ended');
  const user = await deps.users.findById(projectId, principal.userId);
  if (!user) throw authErrors.invalidToken('Session has ended');
  return { user, sessionId: principal.sessionId };
}
