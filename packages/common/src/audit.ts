import type { Request } from 'express';
import type { ProjectId } from './tenancy';
import { createEvent, type EventEnvelope } from './events/envelope';

/**
 * The audit log of admin actions and end users' security events. Each owning service hands an
 * `audit.recorded` event to its outbox in the same write as the change it describes (so an entry
 * exists exactly when the change does); the auth service keeps the log and serves it on the admin
 * API, and writes its own end-user events (sign-ins, refresh-token reuse, password changes and
 * resets) to it directly.
 */
export const AUDIT_ACTIONS = [
  'project.created',
  'project.updated',
  'project.deleted',
  'project.key_rotated',
  'collection.registered',
  'collection.rls_disabled',
  'collection.deleted',
  'user.deleted',
  'signing_key.rotated',
  'document.created',
  'document.updated',
  'document.trashed',
  'document.restored',
  'file.uploaded',
  'file.deleted',
  'mail.test_sent',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'console_account.created',
  'console_account.deleted',
  // end users' security events (security notes #22, #87), written by auth
  'user.logged_in',
  'user.login_failed',
  'user.refresh_token_reused',
  'user.password_changed',
  'user.password_reset',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: the holder of the platform admin token (the operator credential, for automation), a
 * console account (its id and email as they were when it acted), an end user of the project (a
 * sign-in, a password change) or someone not known to be one (a failed sign-in, a replayed
 * refresh token, a reset code's holder).
 */
export type AuditActor =
  | { type: 'platform-admin' }
  | { type: 'console-account'; id: string; email: string }
  | { type: 'end-user'; id: string }
  | { type: 'anonymous' };

export type AuditTargetType =
  | 'project'
  | 'api-key'
  | 'collection'
  | 'user'
  | 'signing-key'
  | 'document'
  | 'file'
  | 'mail-template'
  | 'member'
  | 'console-account';
export interface AuditTarget {
  type: AuditTargetType;
  id: string;
}

/** The payload of `audit.recorded` (version 1); time, project and request id are the envelope's. */
export interface AuditRecorded {
  action: AuditAction;
  actor: AuditActor;
  target: AuditTarget;
  /** The client's address as the gateway saw it (TRUST_PROXY applied); null when unknown. */
  clientIp: string | null;
  /** Safe facts about the change (never a key, secret or document content). */
  details?: Record<string, unknown>;
}

/** Who made an admin request and from where, as the gateway asserted it. */
export interface AuditSource {
  actor: AuditActor;
  clientIp: string | null;
  requestId: string;
}

/** The audit source of an admin request (call after the admin check). */
export function auditSource(req: Request): AuditSource {
  return {
    actor: req.assertion?.account
      ? { type: 'console-account', id: req.assertion.account.id, email: req.assertion.account.email }
      : { type: 'platform-admin' },
    clientIp: req.assertion?.clientIp ?? null,
    requestId: req.assertion?.requestId ?? req.id,
  };
}

/** The `audit.recorded` event for an action, to be written with the change it describes. */
export function auditEvent(
  projectId: ProjectId,
  source: AuditSource,
  action: AuditAction,
  target: AuditTarget,
  details?: Record<string, unknown>,
): EventEnvelope<'audit.recorded'> {
  const data: AuditRecorded = { action, actor: source.actor, target, clientIp: source.clientIp };
  if (details) data.details = details;
  return createEvent('audit.recorded', projectId, data, { requestId: source.requestId });
}
