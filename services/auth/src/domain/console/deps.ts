import type { MailEnvelopeKey } from '@baas/common';
import type {
  AuditLog,
  CacheInvalidator,
  ConsoleAccountRepository,
  ConsoleMemberRepository,
  ConsoleObserver,
  ConsoleSessionRepository,
  LoginThrottle,
  PasswordHasher,
  ProjectRepository,
} from '../../ports';

/** Lifetimes of the console's sessions and links. */
export interface ConsolePolicy {
  /** CONSOLE_SESSION_TTL_SECONDS: absolute, a session is never extended. */
  sessionTtlSeconds: number;
  invitationTtlSeconds: number;
  resetCodeTtlSeconds: number;
  /** A new reset mail for the same account is not sent within this many seconds of the last. */
  resetResendIntervalSeconds: number;
}

/** Invitations are valid for 7 days, reset links for 1 hour. */
export const INVITATION_TTL_SECONDS = 7 * 86_400;
export const CONSOLE_RESET_CODE_TTL_SECONDS = 3_600;

/** What the console use cases need. */
export interface ConsoleDeps {
  accounts: ConsoleAccountRepository;
  sessions: ConsoleSessionRepository;
  members: ConsoleMemberRepository;
  /** Project names for session views and mails; a deleted project is not found. */
  projects: Pick<ProjectRepository, 'findById' | 'list'>;
  /** The same argon2id hasher (parameters and queue) as end users'. */
  hasher: PasswordHasher;
  loginThrottle: LoginThrottle;
  /** Tells gateways to drop a cached session resolution of an account at once. */
  invalidator: CacheInvalidator;
  /** Platform-wide actions (accounts created and deleted) are appended here directly. */
  audit: AuditLog;
  /** Seals the link tokens of invitation and reset events for the mail service. */
  mailEnvelopeKey: MailEnvelopeKey;
  policy: ConsolePolicy;
  clock: () => Date;
  ids: { id(): string };
  observer?: ConsoleObserver;
}
