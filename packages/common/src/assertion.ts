import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { z } from 'zod';
import type { NextFunction, Request, Response } from 'express';
import { AppError, errors } from './errors';
import { boundedLru } from './lru';
import type { ConsoleActorClaim } from './console';
import { setContextProjectId } from './request-context';
import {
  isProjectIdString,
  trustedProjectId,
  type KeyType,
  type ProjectId,
  type RequestContext,
} from './tenancy';

/**
 * The gateway assertion: services trust the project id and key type only from this short-lived
 * EdDSA (Ed25519) JWT, never from a client header. Only the gateway holds the private key
 * (GATEWAY_ASSERTION_PRIVATE_KEY); every service verifies with the public key
 * (GATEWAY_ASSERTION_PUBLIC_KEY), so a compromised service can read assertions but never sign
 * one. The audience is the target service, so an assertion for one service is worthless at
 * another. It names who is calling (project, key type, settings, admin), not which request: the
 * gateway signs one per caller and audience and reuses it for half its lifetime, and a service
 * verifies each distinct token once (the request id travels in `x-request-id`).
 */
export const ASSERTION_HEADER = 'x-gateway-assertion';
const ISSUER = 'baas-gateway';
/** One algorithm, pinned on both ends: HS256 (the old shared secret), `none` and RS/ES are refused. */
const ALG = 'EdDSA';
const LIFETIME_SECONDS = 60;

/**
 * A PEM as it arrives from the environment: with real newlines (a mounted file, a multi-line
 * variable) or with `\n` escapes (one line in an env file, a kustomize literal).
 */
function pemText(value: string): string {
  return value.replace(/\\n/g, '\n').trim();
}

/** The gateway's signing key: an Ed25519 private key, PEM (PKCS#8). Throws on anything else. */
export function assertionPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pemText(pem), format: 'pem' });
  } catch {
    throw new Error('not a PEM private key (PKCS#8, "-----BEGIN PRIVATE KEY-----")');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

/**
 * The services' verification key: the gateway's Ed25519 public key, PEM (SPKI). A private key is
 * refused, so a service never holds what signs assertions, even by mistake.
 */
export function assertionPublicKey(pem: string): KeyObject {
  const text = pemText(pem);
  if (/PRIVATE KEY/.test(text))
    throw new Error('a private key: services get the public key only ("-----BEGIN PUBLIC KEY-----")');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch {
    throw new Error('not a PEM public key (SPKI, "-----BEGIN PUBLIC KEY-----")');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

function keySchema(parse: (pem: string) => KeyObject) {
  return z.string().transform((v, ctx) => {
    try {
      return parse(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });
}

/** GATEWAY_ASSERTION_PRIVATE_KEY (or _FILE): the gateway only. */
export const assertionPrivateKeySchema = keySchema(assertionPrivateKey);
/** GATEWAY_ASSERTION_PUBLIC_KEY (or _FILE): every service behind the gateway. */
export const assertionPublicKeySchema = keySchema(assertionPublicKey);

export interface AssertionKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** PKCS#8 and SPKI PEM, as the variables take them. */
  privateKeyPem: string;
  publicKeyPem: string;
}

/** A fresh Ed25519 pair: what in-process test harnesses sign and verify with. */
export function generateAssertionKeyPair(): AssertionKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicKey,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export type ServiceName = 'auth' | 'data' | 'storage' | 'mail' | 'janitor';

/** Project settings the services act on, resolved by the gateway with defaults applied. */
export interface ProjectSettingsClaim {
  publicSignups: boolean;
  requireEmailVerification: boolean;
  limits: { storageBytes: number; documents: number; mailMonthly: number };
}

export interface GatewayAssertion {
  /** The request's id (`x-request-id`), set by the receiving service; not part of the token. */
  requestId: string;
  settings?: ProjectSettingsClaim;
  projectId?: ProjectId;
  keyType?: KeyType;
  /**
   * The caller may use this admin route: it presented the PLATFORM_ADMIN_TOKEN, or a console
   * session whose role the gateway checked for this route.
   */
  admin: boolean;
  /** The client's address as the gateway saw it (TRUST_PROXY applied), for the audit log. */
  clientIp?: string;
  /** The console account behind an admin request made with a console session (absent for the token). */
  account?: ConsoleActorClaim;
  /**
   * The projects a console account that is not a platform admin may see (platform-wide lists
   * are filtered to these); absent when the caller sees every project.
   */
  scope?: string[];
}

/** What an assertion says: the caller, without the request. */
export type AssertionClaims = Omit<GatewayAssertion, 'requestId'>;

/**
 * Signs an assertion with the gateway's private key; a `requestId` among the claims is ignored
 * (it travels in `x-request-id`).
 */
export async function signAssertion(
  privateKey: KeyObject,
  audience: ServiceName,
  claims: AssertionClaims & { requestId?: string },
): Promise<string> {
  const payload: Record<string, unknown> = { adm: claims.admin };
  if (claims.projectId) payload.pid = claims.projectId;
  if (claims.keyType) payload.kt = claims.keyType;
  if (claims.settings) payload.set = claims.settings;
  if (claims.clientIp) payload.ip = claims.clientIp;
  if (claims.account) payload.acct = claims.account;
  if (claims.scope) payload.scp = claims.scope;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ALG, typ: 'baas-assertion+jwt' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SECONDS}s`)
    .sign(privateKey);
}

export async function verifyAssertion(
  publicKey: KeyObject,
  audience: ServiceName,
  token: string,
): Promise<AssertionClaims & { expiresAt: number }> {
  const { payload } = await jwtVerify(token, publicKey, {
    algorithms: [ALG],
    issuer: ISSUER,
    audience,
    typ: 'baas-assertion+jwt',
    requiredClaims: ['exp', 'iat'],
    clockTolerance: 5,
    maxTokenAge: `${LIFETIME_SECONDS + 5}s`,
  });
  const { pid, kt, adm, set, ip, exp, acct, scp } = payload as Record<string, unknown>;
  const out: AssertionClaims & { expiresAt: number } = { admin: adm === true, expiresAt: Number(exp) * 1000 };
  if (pid !== undefined) {
    if (!isProjectIdString(pid)) throw new Error('assertion with a malformed project id');
    out.projectId = trustedProjectId(pid);
  }
  if (kt !== undefined) {
    if (kt !== 'publishable' && kt !== 'secret') throw new Error('assertion with unknown key type');
    out.keyType = kt;
  }
  if (set !== undefined) out.settings = set as ProjectSettingsClaim;
  if (typeof ip === 'string') out.clientIp = ip;
  if (acct !== undefined) {
    const a: Record<string, unknown> = typeof acct === 'object' && acct !== null ? { ...acct } : {};
    const { id, email, platformAdmin } = a;
    if (typeof id !== 'string' || typeof email !== 'string' || typeof platformAdmin !== 'boolean')
      throw new Error('assertion with a malformed account');
    out.account = { id, email, platformAdmin };
  }
  if (scp !== undefined) {
    if (!Array.isArray(scp) || !scp.every(isProjectIdString))
      throw new Error('assertion with a malformed scope');
    out.scope = scp;
  }
  return out;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set only by requireGatewayAssertion after verifying the gateway's signature. */
    assertion?: GatewayAssertion;
  }
}

/**
 * The keys a service accepts assertions from: the gateway's public key and, during a rotation of
 * the pair, the previous one (GATEWAY_ASSERTION_PREVIOUS_PUBLIC_KEY).
 */
export function assertionVerificationKeys(config: {
  GATEWAY_ASSERTION_PUBLIC_KEY: KeyObject;
  GATEWAY_ASSERTION_PREVIOUS_PUBLIC_KEY?: KeyObject | undefined;
}): KeyObject[] {
  const previous = config.GATEWAY_ASSERTION_PREVIOUS_PUBLIC_KEY;
  return previous ? [config.GATEWAY_ASSERTION_PUBLIC_KEY, previous] : [config.GATEWAY_ASSERTION_PUBLIC_KEY];
}

/** Verifies with the first key whose signature matches; any other failure is final. */
async function verifyWithAny(
  keys: readonly KeyObject[],
  audience: ServiceName,
  token: string,
): Promise<AssertionClaims & { expiresAt: number }> {
  for (let i = 0; ; i++) {
    try {
      return await verifyAssertion(keys[i]!, audience, token);
    } catch (e) {
      if (i + 1 >= keys.length || !(e instanceof joseErrors.JWSSignatureVerificationFailed)) throw e;
    }
  }
}

/** Verified tokens, until they expire: a service checks each distinct assertion once. */
const VERIFIED_CACHE_MAX = 10_000;

/**
 * Checks a request's assertion (the `x-gateway-assertion` header's value) for this service,
 * signed by the gateway's key (or, during a rotation, by the previous one): what the request may
 * do, or a 401 AppError. Each distinct token is verified once, until it expires.
 */
export type AssertionCheck = (token: string | undefined, requestId: string) => Promise<GatewayAssertion>;

export function gatewayAssertionCheck(
  publicKeys: KeyObject | readonly KeyObject[],
  audience: ServiceName,
): AssertionCheck {
  const keys: readonly KeyObject[] = Array.isArray(publicKeys) ? publicKeys : [publicKeys as KeyObject];
  if (keys.length === 0) throw new Error('requireGatewayAssertion: no public key');
  const verified = boundedLru<string, AssertionClaims & { expiresAt: number }>(VERIFIED_CACHE_MAX);
  return async (token, requestId) => {
    if (!token)
      throw errors.unauthorized('GATEWAY_ASSERTION_REQUIRED', 'Requests must come through the gateway');
    let claims = verified.get(token);
    if (!claims || claims.expiresAt <= Date.now()) {
      try {
        claims = await verifyWithAny(keys, audience, token);
      } catch (e) {
        const reason = e instanceof joseErrors.JOSEError ? e.code : 'invalid';
        throw new AppError(401, 'GATEWAY_ASSERTION_INVALID', `Invalid gateway assertion (${reason})`);
      }
      verified.set(token, claims);
    }
    if (claims.projectId) setContextProjectId(claims.projectId);
    return {
      admin: claims.admin,
      requestId,
      ...(claims.projectId ? { projectId: claims.projectId } : {}),
      ...(claims.keyType ? { keyType: claims.keyType } : {}),
      ...(claims.settings ? { settings: claims.settings } : {}),
      ...(claims.clientIp ? { clientIp: claims.clientIp } : {}),
      ...(claims.account ? { account: claims.account } : {}),
      ...(claims.scope ? { scope: claims.scope } : {}),
    };
  };
}

/**
 * Refuses every request that does not carry a valid assertion for this service, signed by the
 * gateway's key (or, during a rotation, by the previous one).
 */
export function requireGatewayAssertion(publicKeys: KeyObject | readonly KeyObject[], audience: ServiceName) {
  return assertionMiddleware(gatewayAssertionCheck(publicKeys, audience));
}

/** requireGatewayAssertion with a check the service also uses elsewhere (one cache of verified tokens). */
export function assertionMiddleware(check: AssertionCheck) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    try {
      req.assertion = await check(req.header(ASSERTION_HEADER), req.id);
      next();
    } catch (e) {
      next(e);
    }
  };
}

/** The tenant of a request, or 401 when the gateway did not resolve a project key. */
export function tenantContext(req: Request): RequestContext & { settings: ProjectSettingsClaim } {
  return tenantOf(req.assertion);
}

/** The tenant an assertion names, or 401 when the gateway did not resolve a project key. */
export function tenantOf(
  a: GatewayAssertion | undefined,
): RequestContext & { settings: ProjectSettingsClaim } {
  if (!a?.projectId || !a.keyType || !a.settings) throw errors.missingApiKey();
  return { projectId: a.projectId, keyType: a.keyType, requestId: a.requestId, settings: a.settings };
}

/**
 * For admin routes under /api/admin/projects/:projectId: the gateway has checked the admin token
 * and that the project exists; the path's id must be the one it asserted.
 */
export function adminProjectContext(
  req: Request,
  pathProjectId: string | undefined,
): RequestContext & { settings?: ProjectSettingsClaim } {
  const a = req.assertion;
  if (!a?.admin) throw errors.adminTokenRequired();
  if (!a.projectId || a.projectId !== pathProjectId)
    throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  const ctx: RequestContext & { settings?: ProjectSettingsClaim } = {
    projectId: a.projectId,
    keyType: 'secret',
    requestId: a.requestId,
  };
  if (a.settings) ctx.settings = a.settings;
  return ctx;
}

export function requireAdmin(req: Request): void {
  if (!req.assertion?.admin) throw errors.adminTokenRequired();
}
