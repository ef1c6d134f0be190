import { randomUUID } from 'node:crypto';
import {
  auditEvent,
  type AuditAction,
  type AuditActor,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import type { AuditLog } from '../../ports';
import type { AuditEntry } from './audit-entry';

/** Where an end user's request came from, as the gateway asserted it. */
export interface RequestOrigin {
  /** The client's address (TRUST_PROXY applied); null when the gateway did not assert one. */
  clientIp: string | null;
  requestId: string;
}

/** What the log records of end users (security notes #22, #87); the rest is admin actions. */
export type UserSecurityAction = Extract<
  AuditAction,
  | 'user.logged_in'
  | 'user.login_failed'
  | 'user.refresh_token_reused'
  | 'user.password_changed'
  | 'user.password_reset'
>;

/** A failed sign-in for an email no user has: the target has no id to name. */
export const UNKNOWN_USER = 'unknown';

/** What `appendUserSecurityEvent` records, as the audit log keeps it. */
export interface UserSecurityRecord {
  projectId: ProjectId;
  origin: RequestOrigin;
  action: UserSecurityAction;
  actor: AuditActor;
  userId: string;
  at: Date;
  details?: Record<string, unknown>;
}

/** The audit entry of an end-user event (a new id each time). */
export function userSecurityEntry(entry: UserSecurityRecord): AuditEntry {
  return {
    id: randomUUID(),
    projectId: entry.projectId,
    at: entry.at,
    action: entry.action,
    actor: entry.actor,
    target: { type: 'user', id: entry.userId },
    requestId: entry.origin.requestId,
    clientIp: entry.origin.clientIp,
    details: entry.details ?? null,
  };
}

/**
 * Appends an end-user event directly: a failed sign-in and a replayed refresh token have no write
 * of the project to ride with (or theirs must stay although the request fails); a sign-in's
 * entry rides with its session (`startSession`). Written right after what it records; a failed
 * append fails the request, as the other direct entries do.
 */
export async function appendUserSecurityEvent(audit: AuditLog, entry: UserSecurityRecord): Promise<void> {
  await audit.append(userSecurityEntry(entry));
}

/** The `audit.recorded` event of an end-user change, written in the same write as the change. */
export function userSecurityEvent(
  projectId: ProjectId,
  origin: RequestOrigin,
  action: UserSecurityAction,
  actor: AuditActor,
  userId: string,
): EventEnvelope<'audit.recorded'> {
  return auditEvent(projectId, { actor, clientIp: origin.clientIp, requestId: origin.requestId }, action, {
    type: 'user',
    id: userId,
  });
}
