import type { AuditRecorded } from '../audit';
import type { ConsoleRole } from '../console';
import type { SealedCodes } from './sealed-codes';

/**
 * The catalogue of domain events: type name -> payload, each at an explicit version.
 * ARCHITECTURE.md lists who publishes and who consumes each one.
 */
export interface EventCatalogue {
  'project.created': { name: string };
  'project.updated': { changed: string[] };
  'project.deleted': Record<string, never>;
  'project.key_rotated': { keyType: 'publishable' | 'secret' };
  'user.created': { userId: string; email: string };
  'user.updated': { userId: string; changed: string[] };
  'user.deleted': { userId: string };
  /**
   * A login (refresh family, the access token's `sid`) ended before its tokens expire: logout,
   * refresh-token reuse, or a password change/reset ending the user's other sessions. Every
   * service that accepts access tokens refuses the session's tokens from then on.
   */
  'auth.session_revoked': { userId: string; sessionId: string; reason: string };
  /**
   * Version 2: the link token and the 8-digit code travel only sealed for the mail service
   * (`sealed`: AES-256-GCM under MAIL_ENVELOPE_KEY, bound to this event; events/sealed-codes.ts).
   * Version 1 carried them in clear and is refused.
   */
  'auth.verification_requested': {
    userId: string;
    email: string;
    expiresAt: string;
    sealed: SealedCodes;
  };
  'auth.password_reset_requested': {
    userId: string;
    email: string;
    expiresAt: string;
    sealed: SealedCodes;
  };
  /**
   * A console invitation to a project (auth, on POST /api/admin/projects/{projectId}/members):
   * the invitation's link token travels only sealed for the mail service (`sealed`: `{ token }`).
   * `invitedBy` is the inviting console account, null when the platform token invited.
   */
  'console.invitation_requested': {
    invitationId: string;
    email: string;
    projectId: string;
    projectName: string;
    role: ConsoleRole;
    invitedBy?: string | null;
    sealed: SealedCodes;
  };
  /**
   * A console account asked to reset its password; the link token is sealed (`{ token }`).
   * Platform-wide: console accounts belong to no project, so the envelope's projectId is null.
   */
  'console.password_reset_requested': { accountId: string; email: string; sealed: SealedCodes };
  'collection.registered': { collection: string };
  'collection.deleted': { collection: string };
  'document.created': { collection: string; documentId: string };
  'document.updated': { collection: string; documentId: string };
  'document.trashed': { collection: string; documentId: string };
  'document.restored': { collection: string; documentId: string };
  'document.purged': { collection: string; documentId: string };
  'file.uploaded': { path: string; size: number; contentType: string };
  'file.deleted': { path: string; size: number };
  'mail.sent': { messageId: string; templateKey?: string; system: boolean };
  'mail.failed': { messageId: string; reason: string; permanent: boolean };
  /** An admin action, written with the change by the service that owns it; auth keeps the log. */
  'audit.recorded': AuditRecorded;
}

export type EventType = keyof EventCatalogue;

/**
 * Events about the platform rather than one project: their envelope's projectId is null (made
 * with createPlatformEvent). Every other event belongs to exactly one project.
 */
export type PlatformEventType = 'console.password_reset_requested';

export const EVENT_VERSIONS: { [K in EventType]: number } = {
  'project.created': 1,
  'project.updated': 1,
  'project.deleted': 1,
  'project.key_rotated': 1,
  'user.created': 1,
  'user.updated': 1,
  'user.deleted': 1,
  'auth.session_revoked': 1,
  'auth.verification_requested': 2,
  'auth.password_reset_requested': 2,
  'console.invitation_requested': 1,
  'console.password_reset_requested': 1,
  'collection.registered': 1,
  'collection.deleted': 1,
  'document.created': 1,
  'document.updated': 1,
  'document.trashed': 1,
  'document.restored': 1,
  'document.purged': 1,
  'file.uploaded': 1,
  'file.deleted': 1,
  'mail.sent': 1,
  'mail.failed': 1,
  'audit.recorded': 1,
};
