import type { EventEnvelope, ProjectId, TimeKeyset } from '@baas/common';
import type { StoredTemplate, TemplateContent, TemplateOwner } from './domain/templates/template';

/** Project overrides and global templates, in the mail service's own database. */
export interface TemplateRepository {
  /** Creates or replaces the template under (owner, key). */
  save(
    owner: TemplateOwner,
    key: string,
    content: TemplateContent,
  ): Promise<{ template: StoredTemplate; created: boolean }>;
  findByKey(owner: TemplateOwner, key: string): Promise<StoredTemplate | null>;
  /** By key, else by name. */
  findByKeyOrName(owner: TemplateOwner, keyOrName: string): Promise<StoredTemplate | null>;
  /** A template of this project or a global one; another project's template is not found. */
  findVisibleById(projectId: ProjectId, id: string): Promise<StoredTemplate | null>;
  list(owner: TemplateOwner): Promise<StoredTemplate[]>;
  delete(owner: TemplateOwner, key: string): Promise<StoredTemplate | null>;
  deleteAllOfProject(projectId: ProjectId): Promise<number>;
}

export type MessageStatus = 'sending' | 'sent' | 'failed';

export interface MessageRecord {
  id: string;
  to: string;
  templateKey?: string;
  system: boolean;
  provider: string;
  status: MessageStatus;
  createdAt: Date;
  /** The event that caused a system mail. */
  causedBy?: string;
}

/** A record as stored, with how its delivery ended (once it has). */
export type StoredMessage = MessageRecord & { attempts?: number; error?: string };

/**
 * Whose log a message is in: a project's, or null for the platform's own mails that belong to no
 * project (a console account's password reset).
 */
export type MessageOwner = ProjectId | null;

/** One record per message; its mail.sent / mail.failed event is written with its final status. */
export interface MessageRepository {
  create(owner: MessageOwner, record: MessageRecord): Promise<void>;
  markSent(owner: MessageOwner, id: string, attempts: number, events: EventEnvelope[]): Promise<void>;
  markFailed(
    owner: MessageOwner,
    id: string,
    attempts: number,
    reason: string,
    events: EventEnvelope[],
  ): Promise<void>;
  findById(owner: MessageOwner, id: string): Promise<StoredMessage | null>;
  /** The owner's messages, newest first by (createdAt, id), after `before` (a 24-hex id) when given. */
  list(owner: MessageOwner, page: { limit: number; before?: TimeKeyset }): Promise<StoredMessage[]>;
  deleteAllOfProject(projectId: ProjectId): Promise<void>;
}

/** One unit of use held in a bucket, and the bucket's count once it was taken. */
export interface UsageSlot {
  slot: number;
  count: number;
}

/** Per-project counters in buckets (a month, a day, a recipient-hour). */
export interface UsageCounter {
  /** Takes one unit when the bucket is below limit, or answers null when it is at the limit. */
  tryIncrement(projectId: ProjectId, bucket: string, limit: number): Promise<UsageSlot | null>;
  /** Gives a unit back (a message that was not sent). */
  release(projectId: ProjectId, bucket: string, slot: number): Promise<void>;
  current(projectId: ProjectId, bucket: string): Promise<number>;
  deleteAllOfProject(projectId: ProjectId): Promise<void>;
  /** Retention across all projects (a maintenance sweep, not a tenant operation). */
  deleteClaimedBefore(bucketPrefix: string, before: Date): Promise<number>;
}

export interface OutgoingMail {
  /** Our id; it becomes the Message-ID header. */
  id: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
}

/** Why a send failed, classified by the adapter. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Retrying cannot help (5xx reply, refused recipient, bad credentials). */
    readonly permanent: boolean,
    /** The server refused the recipient address itself. */
    readonly recipientRejected = false,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export interface Mailer {
  readonly provider: string;
  /** Resolves when the server accepted the message; throws DeliveryError otherwise. */
  send(mail: OutgoingMail): Promise<void>;
}

export interface IdGenerator {
  messageId(): string;
}

/**
 * Which path a mail took: a platform mail for an auth or console event, an API send with a
 * template or with direct content.
 */
export type MailKind = 'system' | 'template' | 'direct';

/**
 * How it ended: accepted by the SMTP server, failed (after the retries), refused by a limit
 * (monthly, or a system mail's daily and per-recipient caps), or dropped unsent (an
 * undeliverable address, a template that does not render).
 */
export type MailOutcome = 'sent' | 'failed' | 'limited' | 'dropped';

/** What the mail use cases report for metrics. */
export interface MailObserver {
  mail(kind: MailKind, outcome: MailOutcome): void;
}
