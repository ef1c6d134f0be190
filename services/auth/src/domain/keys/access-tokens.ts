import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import {
  ACCESS_TOKEN_ALG,
  ACCESS_TOKEN_ISSUER,
  ACCESS_TOKEN_TYP,
  accessTokenAudience,
  createAccessTokenVerifier,
  type AccessTokenVerifier,
  type ProjectId,
} from '@baas/common';
import type { KeyStore } from './key-store';

export interface AccessTokenClaims {
  projectId: ProjectId;
  userId: string;
  sessionId: string;
  emailVerified: boolean;
}

/** An access token as packages/common/src/user-tokens.ts defines it (the verifiers' contract). */
export async function issueAccessToken(
  keys: KeyStore,
  c: AccessTokenClaims,
  ttlSeconds: number,
): Promise<string> {
  const { kid, key } = keys.signingKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: c.sessionId, email_verified: c.emailVerified })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid })
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(accessTokenAudience(c.projectId))
    .setSubject(c.userId)
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key);
}

/** The same verifier the data and storage services use, fed from the local key set. */
export function localAccessTokenVerifier(keys: KeyStore, ttlSeconds: number): AccessTokenVerifier {
  return createAccessTokenVerifier(keys.verificationKey, ttlSeconds);
}
