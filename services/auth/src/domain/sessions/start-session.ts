import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import type { User } from '../users/user';
import type { AuditEntry } from '../audit/audit-entry';
import { issueAccessToken } from '../keys/access-tokens';
import { newRootRefreshToken, refreshTokenHash } from './refresh-tokens';

export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
}

/**
 * A new login: a new rotation family (never one the client brought along) and its first tokens;
 * `record`, the sign-in's audit entry, is written with the session. The access token is signed
 * first: a sign-in that cannot get its token stores no session and no "signed in" entry.
 */
export async function startSession(
  deps: AuthDeps,
  projectId: ProjectId,
  user: User,
  record?: AuditEntry,
): Promise<IssuedTokens> {
  const now = deps.clock();
  const familyId = deps.ids.familyId();
  const refreshToken = newRootRefreshToken();
  const access = await accessFor(deps, projectId, user, familyId);
  await deps.sessions.startFamily(
    {
      id: familyId,
      projectId,
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.policy.refreshFamilyMaxSeconds * 1000),
    },
    {
      hash: refreshTokenHash(refreshToken),
      projectId,
      userId: user.id,
      familyId,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + deps.policy.refreshTokenTtlSeconds * 1000),
    },
    record,
  );
  return { ...access, refreshToken };
}

export async function accessFor(deps: AuthDeps, projectId: ProjectId, user: User, familyId: string) {
  const ttl = deps.policy.accessTokenTtlSeconds;
  const accessToken = await issueAccessToken(
    deps.keys,
    { projectId, userId: user.id, sessionId: familyId, emailVerified: user.emailVerified },
    ttl,
  );
  return { accessToken, expiresIn: ttl };
}
