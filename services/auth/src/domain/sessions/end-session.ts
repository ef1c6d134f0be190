import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { looksLikeRefreshToken, refreshTokenHash } from './refresh-tokens';

/** Logout: the family of the presented refresh token is revoked. Unknown tokens change nothing. */
export async function endSession(deps: AuthDeps, projectId: ProjectId, token: string): Promise<void> {
  if (!looksLikeRefreshToken(token)) return;
  const found = await deps.sessions.findToken(projectId, refreshTokenHash(token));
  if (found) await deps.sessions.revokeFamily(projectId, found.familyId, 'logout', deps.clock());
}
