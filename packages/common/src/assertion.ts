import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { NextFunction, Request, Response } from 'express';
import { AppError, errors } from './errors';
import {
  isProjectIdString,
  trustedProjectId,
  type KeyType,
  type ProjectId,
  type RequestContext,
} from './tenancy';

/**
 * The gateway assertion: services trust the project id and key type only from this short-lived
 * HS256 JWT signed by the gateway with INTERNAL_ASSERTION_SECRET, never from a client header.
 * The audience is the target service, so an assertion for one service is worthless at another.
 */
export const ASSERTION_HEADER = 'x-gateway-assertion';
const ISSUER = 'baas-gateway';
const ALG = 'HS256';
const LIFETIME_SECONDS = 60;

export type ServiceName = 'auth' | 'data' | 'storage' | 'mail' | 'janitor';

/** Project settings the services act on, resolved by the gateway with defaults applied. */
export interface ProjectSettingsClaim {
  publicSignups: boolean;
  requireEmailVerification: boolean;
  limits: { storageBytes: number; documents: number; mailMonthly: number };
}

export interface GatewayAssertion {
  requestId: string;
  settings?: ProjectSettingsClaim;
  projectId?: ProjectId;
  keyType?: KeyType;
  /** The caller presented a valid PLATFORM_ADMIN_TOKEN. */
  admin: boolean;
}

export function assertionKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function signAssertion(
  key: Uint8Array,
  audience: ServiceName,
  claims: GatewayAssertion,
): Promise<string> {
  const payload: Record<string, unknown> = { rid: claims.requestId, adm: claims.admin };
  if (claims.projectId) payload.pid = claims.projectId;
  if (claims.keyType) payload.kt = claims.keyType;
  if (claims.settings) payload.set = claims.settings;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ALG, typ: 'baas-assertion+jwt' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SECONDS}s`)
    .sign(key);
}

export async function verifyAssertion(
  key: Uint8Array,
  audience: ServiceName,
  token: string,
): Promise<GatewayAssertion> {
  const { payload } = await jwtVerify(token, key, {
    algorithms: [ALG],
    issuer: ISSUER,
    audience,
    typ: 'baas-assertion+jwt',
    requiredClaims: ['exp', 'iat', 'rid'],
    clockTolerance: 5,
    maxTokenAge: `${LIFETIME_SECONDS + 5}s`,
  });
  const { pid, kt, rid, adm, set } = payload as Record<string, unknown>;
  if (typeof rid !== 'string') throw new Error('assertion without request id');
  const out: GatewayAssertion = { requestId: rid, admin: adm === true };
  if (pid !== undefined) {
    if (!isProjectIdString(pid)) throw new Error('assertion with a malformed project id');
    out.projectId = trustedProjectId(pid);
  }
  if (kt !== undefined) {
    if (kt !== 'publishable' && kt !== 'secret') throw new Error('assertion with unknown key type');
    out.keyType = kt;
  }
  if (set !== undefined) out.settings = set as ProjectSettingsClaim;
  return out;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set only by requireGatewayAssertion after verifying the gateway's signature. */
    assertion?: GatewayAssertion;
  }
}

/** Refuses every request that does not carry a valid assertion for this service. */
export function requireGatewayAssertion(key: Uint8Array, audience: ServiceName) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const token = req.header(ASSERTION_HEADER);
    if (!token)
      return next(
        errors.unauthorized('GATEWAY_ASSERTION_REQUIRED', 'Requests must come through the gateway'),
      );
    try {
      req.assertion = await verifyAssertion(key, audience, token);
      next();
    } catch (e) {
      const reason = e instanceof joseErrors.JOSEError ? e.code : 'invalid';
      next(new AppError(401, 'GATEWAY_ASSERTION_INVALID', `Invalid gateway assertion (${reason})`));
    }
  };
}

/** The tenant of a request, or 401 when the gateway did not resolve a project key. */
export function tenantContext(req: Request): RequestContext & { settings: ProjectSettingsClaim } {
  const a = req.assertion;
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
