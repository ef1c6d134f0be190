import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from '../users/auth-errors';
import { accessFor, type IssuedTokens } from './start-session';
import { looksLikeRefreshToken, refreshTokenHash, successorOf } from './refresh-tokens';

/**
 * Refresh-token rotation (RFC 9700 §4.14.2):
 * - the first use of a token claims it atomically (conditional update) and its successor becomes
 *   the live token of the family;
 * - a repeat use of that token within REFRESH_REUSE_GRACE_SECONDS (a lost response, two tabs,
 *   concurrent retries) gets the very same successor, as long as the successor itself is unused;
 * - any other repeat use is replay: the whole family is revoked (a separate write that stays
 *   even though the request fails) and the answer is 401 REFRESH_TOKEN_REUSED.
 * So however many refreshes race on one token, the family has at most one live successor.
 */
export async function rotateSession(deps: AuthDeps, projectId: ProjectId, token: string): Promise<IssuedTokens> {
  if (!looksLikeRefreshToken(token)) throw authErrors.invalidRefreshToken();
  const now = deps.clock();
  const hash = refreshTokenHash(token);
  const current = await deps.sessions.findToken(projectId, hash);
  if (!current) throw authErrors.invalidRefreshToken();
  const family = await deps.sessions.findFamily(projectId, current.familyId);
  if (!family || family.revokedAt || family.expiresAt <= now || current.expiresAt <= now)
    throw authErrors.invalidRefreshToken();

  const child = successorOf(deps.secrets.refreshDerivation, token);
  const childHash = refreshTokenHash(child);
  let usedAt = now;
  if (!(await deps.sessions.claimToken(projectId, hash, childHash, now))) {
    const seen = await deps.sessions.findToken(projectId, hash);
    const graceMs = deps.policy.refreshReuseGraceSeconds * 1000;
    const withinGrace = !!seen?.usedAt && graceMs > 0 && now.getTime() - seen.usedAt.getTime() <= graceMs;
    const childDoc = withinGrace ? await deps.sessions.findToken(projectId, childHash) : null;
    if (!seen?.usedAt || !withinGrace || seen.childHash !== childHash || childDoc?.usedAt) {
      await deps.sessions.revokeFamily(projectId, current.familyId, 'refresh_token_reuse', now);
      throw authErrors.refreshTokenReused();
    }
    usedAt = seen.usedAt;
  }
  // Every racer writes the same successor (derived from the token, dated from the claim).
  await deps.sessions.ensureToken({
    hash: childHash,
    projectId,
    userId: current.userId,
    familyId: current.familyId,
    issuedAt: usedAt,
    expiresAt: new Date(usedAt.getTime() + deps.policy.refreshTokenTtlSeconds * 1000),
  });

  // A reuse detected meanwhile, a logout, or a deleted user ends it here too.
  const [after, user] = await Promise.all([
    deps.sessions.findFamily(projectId, current.familyId),
    deps.users.findById(projectId, current.userId),
  ]);
  if (!after || after.revokedAt) throw authErrors.invalidRefreshToken();
  if (!user) {
    await deps.sessions.revokeFamily(projectId, current.familyId, 'user_deleted', now);
    throw authErrors.invalidRefreshToken();
  }
  return { ...(await accessFor(deps, projectId, user, current.familyId)), refreshToken: child };
}
