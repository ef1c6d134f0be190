import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { IncomingMessage } from 'node:http';
import { errors } from './errors';
import { boundedLru } from './lru';
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
/**
 * Verifiers refuse tokens meant to live longer; revocations are kept this long (plus tolerance).
 * 15 minutes: the security notes' ceiling for a bearer token that is checked without a call to
 * auth (OWASP's JWT cheat sheet, RFC 9700 §2.2); the default lifetime is 900 s too.
 */
export const MAX_ACCESS_TOKEN_LIFETIME_SECONDS = 900;
export const ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS = 30;
/**
 * A verifier that meets a kid it does not know refetches the JWKS, at most once in this long
 * (a token with a made-up kid must not make every request a call to auth).
 */
export const JWKS_REFETCH_COOLDOWN_MS = 5_000;
/**
 * A new signing key is published this long before auth signs with it. A verifier that fetched the
 * JWKS just before the key was published is still cooling down for up to JWKS_REFETCH_COOLDOWN_MS;
 * were the key used at once, a token signed with it would be refused there (401) until then. Twice
 * the cooldown: replicas' clocks differ a little.
 */
export const SIGNING_KEY_PUBLISH_AHEAD_MS = 2 * JWKS_REFETCH_COOLDOWN_MS;

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

/** Verified tokens (per project), until they expire: each distinct token's signature is checked once. */
const VERIFIED_TOKENS_MAX = 10_000;

export interface AccessTokenVerifierOptions {
  /** How many verified tokens are remembered (least recently used evicted first). */
  cacheMax?: number;
  /** The clock, in ms (tests); the same one judges expiry for the signature check and the cache. */
  now?: () => number;
}

interface VerifiedToken {
  principal: UserPrincipal;
  /** jose accepts the token while now < (exp + clock tolerance) s; the cache keeps it as long. */
  validUntilMs: number;
}

/**
 * `revocations`: tokens of ended sessions and deleted users (an in-memory list fed by auth's
 * events, see revocation-feed.ts); a revoked token is the same 401 as an invalid one.
 *
 * A token whose signature and claims were checked is remembered until it expires, so a client
 * reusing its token (every request until a refresh) costs one Ed25519 verification (~100 us of CPU)
 * per token, not per request, as the gateway's assertions do. Safe because nothing makes a once
 * valid signature invalid before exp: a rotated signing key stays in the JWKS until the tokens it
 * signed expire (docs/operations.md), and jose would keep a JWKS it fetched for 10 minutes anyway.
 * Revocations are checked on every use, cached or not; failures are never cached.
 */
export function createAccessTokenVerifier(
  keys: JWTVerifyGetKey,
  maxLifetimeSeconds = MAX_ACCESS_TOKEN_LIFETIME_SECONDS,
  revocations?: RevocationCheck,
  opts: AccessTokenVerifierOptions = {},
): AccessTokenVerifier {
  const now = opts.now ?? Date.now;
  const verified = boundedLru<string, VerifiedToken>(opts.cacheMax ?? VERIFIED_TOKENS_MAX);

  async function check(token: string, projectId: ProjectId): Promise<VerifiedToken> {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: ACCESS_TOKEN_ISSUER,
      audience: accessTokenAudience(projectId),
      typ: ACCESS_TOKEN_TYP,
      requiredClaims: ['sub', 'sid', 'jti', 'exp', 'iat'],
      clockTolerance: ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: maxLifetimeSeconds + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now()),
    });
    // maxTokenAge bounds the age, not the stated lifetime: refuse tokens meant to live longer.
    if (
      typeof payload.iat === 'number' &&
      typeof payload.exp === 'number' &&
      payload.exp - payload.iat > maxLifetimeSeconds
    )
      throw new Error('lifetime over policy');
    return {
      principal: {
        userId: String(payload.sub),
        sessionId: String(payload.sid),
        emailVerified: payload.email_verified === true,
        issuedAt: Number(payload.iat),
      },
      // requiredClaims makes exp a number here; with exp - iat <= maxLifetimeSeconds, exp binds
      // before maxTokenAge does.
      validUntilMs: (Number(payload.exp) + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS) * 1000,
    };
  }

  return {
    async verify(token, projectId) {
      const key = `${projectId}\u0000${token}`;
      let entry = verified.get(key);
      if (!entry || entry.validUntilMs <= now()) {
        try {
          entry = await check(token, projectId);
        } catch {
          verified.delete(key);
          throw errors.unauthorized('INVALID_TOKEN', 'Invalid or expired access token');
        }
        verified.set(key, entry);
      }
      if (revocations?.isRevoked(projectId, entry.principal))
        throw errors.unauthorized('INVALID_TOKEN', 'Invalid or expired access token');
      return { ...entry.principal };
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
    cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
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
