import { randomBytes } from 'node:crypto';
import { assertionPrivateKey, signAssertion, trustedProjectId, type ServiceName } from '@baas/common';
import { stackSecret } from './stack-env';

/** Project settings an assertion carries in tests that call a service directly. */
export const TEST_SETTINGS = {
  publicSignups: true,
  requireEmailVerification: false,
  limits: { storageBytes: 1e8, documents: 1e5, mailMonthly: 1000 },
};

const CALL_TIMEOUT_MS = 30_000;

export interface ServiceResult {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The assertion the gateway would send to `audience`: an admin's and/or a project's (with its
 * secret key), signed with the stack's GATEWAY_ASSERTION_PRIVATE_KEY; neither, a public request's.
 */
export function serviceAssertion(
  audience: ServiceName,
  claims: { projectId?: string; admin?: boolean },
): Promise<string> {
  const key = assertionPrivateKey(stackSecret('GATEWAY_ASSERTION_PRIVATE_KEY'));
  return signAssertion(key, audience, {
    requestId: `test-${randomBytes(4).toString('hex')}`,
    admin: claims.admin ?? false,
    ...(claims.projectId
      ? { projectId: trustedProjectId(claims.projectId), keyType: 'secret' as const, settings: TEST_SETTINGS }
      : {}),
  });
}

/**
 * A request straight to one service process (bypassing the gateway) with a valid gateway
 * assertion signed with the stack's GATEWAY_ASSERTION_PRIVATE_KEY (from .stack/secrets.env: only
 * the gateway gets it, and tests standing in for the gateway): what fault tests use to drive a
 * service process they started themselves.
 */
export async function callService(
  base: string,
  audience: ServiceName,
  method: string,
  path: string,
  claims: { projectId?: string; admin?: boolean },
  body?: unknown,
): Promise<ServiceResult> {
  const assertion = await serviceAssertion(audience, claims);
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-gateway-assertion': assertion, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    // a server that a fault test cut off must fail the call, never hang it (and the test's loop)
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
