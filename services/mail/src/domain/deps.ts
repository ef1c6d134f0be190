import type { Logger, MailEnvelopeKey } from '@baas/common';
import type {
  IdGenerator,
  Mailer,
  MailObserver,
  MessageRepository,
  TemplateRepository,
  UsageCounter,
} from '../ports';

export interface MailLimits {
  /** Used when the gateway's settings claim carries no monthly limit. */
  defaultMonthly: number;
  systemDaily: number;
  systemRecipientHourly: number;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

export interface MailDeps {
  templates: TemplateRepository;
  messages: MessageRepository;
  usage: UsageCounter;
  mailer: Mailer;
  ids: IdGenerator;
  logger: Logger;
  limits: MailLimits;
  retry: RetryPolicy;
  /** Open the codes of auth's events: the current key first, then a previous one. */
  envelopeKeys: readonly MailEnvelopeKey[];
  /** Base of links in system mails; none when unset. */
  linkBaseUrl?: string;
  /** The web console (CONSOLE_URL): console invitation and reset mails link into it. */
  consoleUrl: string;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** Counts mails by kind and outcome (metrics); none in tests that do not look. */
  observer?: MailObserver;
}
