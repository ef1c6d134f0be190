import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { IncomingMessage } from 'node:http';
import { errors } from './errors';
import type { ProjectId } from './tenancy';
import type { RevocationCheck } from './revocation-list';

/**
 * End-user access tokens (issued by the auth service, verified by every service without calling
 * auth per request). The conventions below are the contract between issuer and verifiers:
 * EdDSA (Ed25519) with a `kid` from the auth service's JWKS, header typ `at+jwt`,
 * iss `baas-auth`, aud `project:<projectId>`, sub = user id, sid = refresh family, jti, iat, exp.
 */
export const ACCESS_TOKEN_ISSUER = 'baas-auth';
export const ACCESS_TOKEN_TYP = 'at+jwt';
export const ACCESS_TOKEN_ALG = 'EdDSA';
export const JWKS_PATH = '/.well-known/jwks.json';
/** Verifiers refuse tokens meant to live longer; revocations are kept this long (plus tolerance). */
export const MAX_ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
export const ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS = 30;

export function accessTokenAudience(projectId: ProjectId | string): string {
  return `project:${projectId}`;
}

export interface UserPrincipal {
  userId: string;
  sessionId: string;
  emailVerified: boolean;
  /** iat, in seconds. */
  issuedAt: number;
}

export interface AccessTokenVerifier {
  verify(token: string, projectId: ProjectId): Promise<UserPrincipal>;
}

/**
 * `revocations`: tokens of ended sessions and deleted users (an in-memory list fed by auth's
 * events, see revocation-feed.ts); a revoked token is the same 401 as an invalid one.
 */
export function createAccessTokenVerifier(
  keys: JWTVerifyGetKey,
  maxLifetimeSeconds = MAX_ACCESS_TOKEN_LIFETIME_SECONDS,
  revocations?: RevocationCheck,
): AccessTokenVerifier {
  return {
    async verify(token, projectId) {
      let principal: UserPrincipal;
      try {
        const { payload } = await jwtVerify(token, keys, {
          algorithms: [ACCESS_TOKEN_ALG],
          issuer: ACCESS_TOKEN_ISSUER,
          audience: accessTokenAudience(projectId),
          typ: ACCESS_TOKEN_TYP,
          requiredClaims: ['sub', 'sid', 'jti', 'exp', 'iat'],
          clockTolerance: ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
          maxTokenAge: maxLifetimeSeconds + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
        });
        // maxTokenAge bounds the age, not the stated lifetime: refuse tokens meant to live longer.
        if (
          typeof payload.iat === 'number' &&
          typeof payload.exp === 'number' &&
          payload.exp - payload.iat > maxLifetimeSeconds
        )
          throw new Error('lifetime over policy');
        principal = {
          userId: String(payload.sub),
          sessionId: String(payload.sid),
          emailVerified: payload.email_verified === true,
          issuedAt: Number(payload.iat),
        };
      } catch {
        throw errors.unauthorized('INVALID_TOKEN', 'Invalid or expired access token');
      }
      if (revocations?.isRevoked(projectId, principal))
        throw errors.unauthorized('INVALID_TOKEN', 'Invalid or expired access token');
      return principal;
    },
  };
}

/** Verifier fed from the auth service's JWKS (cached by jose, refetched on an unknown kid). */
export function remoteAccessTokenVerifier(
  authBaseUrl: string,
  maxLifetimeSeconds?: number,
  revocations?: RevocationCheck,
): AccessTokenVerifier {
  const jwks = createRemoteJWKSet(new URL(JWKS_PATH, authBaseUrl), {
    cooldownDuration: 5_000,
    cacheMaxAge: 600_000,
  });
  return createAccessTokenVerifier(jwks, maxLifetimeSeconds, revocations);
}

/** The Bearer token of a request, if any (a malformed Authorization header is a 401). */
export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(h);
  if (!m?.[1]) throw errors.unauthorized('INVALID_TOKEN', 'Malformed Authorization header');
  return m[1];
}
