import { randomBytes } from 'node:crypto';
import { assertionKey, signAssertion, trustedProjectId, type ServiceName } from '@baas/common';
import { stackEnv } from './stack-env';

/** Project settings an assertion carries in tests that call a service directly. */
export const TEST_SETTINGS = {
  publicSignups: true,
  requireEmailVerification: false,
  limits: { storageBytes: 1e8, documents: 1e5, mailMonthly: 1000 },
};

export interface ServiceResult {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A request straight to one service process (bypassing the gateway) with a valid gateway
 * assertion signed with the stack's INTERNAL_ASSERTION_SECRET: what fault tests use to drive a
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
  const assertion = await signAssertion(assertionKey(stackEnv().INTERNAL_ASSERTION_SECRET ?? ''), audience, {
    requestId: `test-${randomBytes(4).toString('hex')}`,
    admin: claims.admin ?? false,
    ...(claims.projectId
      ? { projectId: trustedProjectId(claims.projectId), keyType: 'secret' as const, settings: TEST_SETTINGS }
      : {}),
  });
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-gateway-assertion': assertion, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
