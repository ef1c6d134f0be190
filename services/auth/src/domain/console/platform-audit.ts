import { randomUUID } from 'node:crypto';
import type { AuditAction, AuditSource } from '@baas/common';
import type { AuditLog } from '../../ports';

/**
 * Appends the entry of a platform-wide console action (an account created or deleted): there is
 * no project to put on an `audit.recorded` envelope, so, like the signing-key rotation, the entry
 * is written directly right after the change (a failed append fails the request).
 */
export async function appendPlatformAudit(
  audit: AuditLog,
  source: AuditSource,
  action: AuditAction,
  accountId: string,
  details: Record<string, unknown>,
): Promise<void> {
  await audit.append({
    id: randomUUID(),
    projectId: null,
    at: new Date(),
    action,
    actor: source.actor,
    target: { type: 'console-account', id: accountId },
    requestId: source.requestId,
    clientIp: source.clientIp,
    details,
  });
}
