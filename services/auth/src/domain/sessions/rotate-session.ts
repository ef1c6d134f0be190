import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from '../users/auth-errors';
import { keyGenerations } from '../crypto/secrets';
import { accessFor, type IssuedTokens } from './start-session';
import { looksLikeRefreshToken, refreshTokenHash, successorOf } from './refresh-tokens';
import { appendUserSecurityEvent, type RequestOrigin } from '../audit/user-security-events';

/**
 * Refresh-token rotation (RFC 9700 §4.14.2). A token's successor is derived from it, so a token
 * has exactly one possible successor, and "this token was used" is "its successor exists":
 * - the first use inserts the successor (a unique-key insert: one winner, also on FerretDB);
 * - a repeat use within REFRESH_REUSE_GRACE_SECONDS of the first (lost response, two tabs,
 *   concurrent retries) gets that same successor, as long as the successor is itself unused;
 * - any other repeat use is replay: the whole family is revoked (its own write, which stays even
 *   though the request fails) and the answer is 401 REFRESH_TOKEN_REUSED.
 * However many refreshes race on one token, the family never has more than one live successor.
 * A replay is audited as `user.refresh_token_reused` (anonymous: the token may be a thief's).
 */
export async function rotateSession(
  deps: AuthDeps,
  projectId: ProjectId,
  token: string,
  origin: RequestOrigin,
): Promise<IssuedTokens> {
  if (!looksLikeRefreshToken(token)) throw authErrors.invalidRefreshToken();
  const now = deps.clock();
  const hash = refreshTokenHash(token);
  const current = await deps.sessions.findToken(projectId, hash);
  if (!current) throw authErrors.invalidRefreshToken();
  const family = await deps.sessions.findFamily(projectId, current.familyId);
  if (!family || family.revokedAt || family.expiresAt <= now || current.expiresAt <= now)
    throw authErrors.invalidRefreshToken();

  // During a rotation of AUTH_SECRET a token first used before it has its successor under the
  // previous secret: that one is "its successor", so a replay is still seen as one.
  let key = deps.secrets.refreshDerivation;
  const previous = deps.secrets.previous?.refreshDerivation;
  if (previous && (await deps.sessions.findToken(projectId, refreshTokenHash(successorOf(previous, token)))))
    key = previous;
  const child = successorOf(key, token);
  const childHash = refreshTokenHash(child);
  const fresh = {
    hash: childHash,
    projectId,
    userId: current.userId,
    familyId: current.familyId,
    issuedAt: now,
    expiresAt: new Date(now.getTime() + deps.policy.refreshTokenTtlSeconds * 1000),
  };
  if (await deps.sessions.insertTokenIfAbsent(fresh)) {
    await deps.sessions.markUsed(projectId, hash, childHash, now);
  } else {
    const existing = await deps.sessions.findToken(projectId, childHash);
    const graceMs = deps.policy.refreshReuseGraceSeconds * 1000;
    const withinGrace = !!existing && graceMs > 0 && now.getTime() - existing.issuedAt.getTime() <= graceMs;
    const childUsed = withinGrace ? await hasSuccessor(deps, projectId, child) : true;
    if (!withinGrace || childUsed) {
      await deps.sessions.revokeFamily(projectId, current.familyId, 'refresh_token_reuse', now);
      await appendUserSecurityEvent(deps.audit, {
        projectId,
        origin,
        action: 'user.refresh_token_reused',
        actor: { type: 'anonymous' },
        userId: current.userId,
        at: now,
        details: { sessionId: current.familyId },
      });
      throw authErrors.refreshTokenReused();
    }
  }

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

/** Whether a token was used: its successor exists (under the current secret or, during a rotation, the previous). */
async function hasSuccessor(deps: AuthDeps, projectId: ProjectId, token: string): Promise<boolean> {
  for (const keys of keyGenerations(deps.secrets)) {
    const found = await deps.sessions.findToken(
      projectId,
      refreshTokenHash(successorOf(keys.refreshDerivation, token)),
    );
    if (found) return true;
  }
  return false;
}
