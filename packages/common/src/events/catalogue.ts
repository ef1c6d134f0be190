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
   * `code`: the link token the spec's `{ token }` form takes (put it in the mail, e.g. in a link);
   * `otp`: the short numeric code the `{ email, otp }` form takes (show it in the mail).
   */
  'auth.verification_requested': {
    userId: string;
    email: string;
    code: string;
    otp?: string;
    expiresAt: string;
  };
  'auth.password_reset_requested': {
    userId: string;
    email: string;
    code: string;
    otp?: string;
    expiresAt: string;
  };
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
}

export type EventType = keyof EventCatalogue;

export const EVENT_VERSIONS: { [K in EventType]: number } = {
  'project.created': 1,
  'project.updated': 1,
  'project.deleted': 1,
  'project.key_rotated': 1,
  'user.created': 1,
  'user.updated': 1,
  'user.deleted': 1,
  'auth.verification_requested': 1,
  'auth.password_reset_requested': 1,
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
};
