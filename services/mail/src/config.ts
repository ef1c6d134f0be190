import { z } from 'zod';
import { env, loadConfig, mailEnvelopeKeySchema, storeEnvShape } from '@baas/common';
import { isValidAddress } from './domain/mail/address';

/** `Name <address>` or a bare address, on one line. */
export function isValidFrom(value: string): boolean {
  if (/[\r\n]/.test(value)) return false;
  const m = /^([^<>"]*)<([^<>]+)>$/.exec(value.trim());
  return isValidAddress(m ? (m[2] ?? '') : value.trim());
}

/** The gateway's console on the gateway's default port (deploy/services.json). */
export const DEFAULT_CONSOLE_URL = 'http://localhost:8080/console/';

export const mailConfigSchema = z.object({
  ...storeEnvShape,
  PORT: env.port(8084),
  SMTP_HOST: env.string('127.0.0.1'),
  SMTP_PORT: env.port(1025),
  /** Only for servers that need it; Mailpit accepts any or none. */
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  /** `true`: implicit TLS (port 465). Otherwise STARTTLS is used when the server offers it. */
  SMTP_SECURE: env.bool(false),
  SMTP_POOL_MAX_CONNECTIONS: env.positiveInt(5),
  /** Attempts per message for transient SMTP failures (connection errors, 4xx replies). */
  SMTP_SEND_ATTEMPTS: env.positiveInt(3),
  SMTP_RETRY_BASE_MS: env.int(250),
  MAIL_FROM: env
    .string('BaaS <no-reply@baas.local>')
    .refine(isValidFrom, 'must be `Name <address>` or an address'),
  DEFAULT_MAIL_MONTHLY_LIMIT: env.int(1000),
  /** Cap on system mails (verification, password reset) per project per UTC day. */
  SYSTEM_MAIL_DAILY_LIMIT: env.int(500),
  /** Cap on system mails to one recipient of one project per UTC hour (mail bombing). */
  SYSTEM_MAIL_RECIPIENT_HOURLY_LIMIT: env.int(10),
  /** When set, system mails carry a link `<base>/verify-email?token=..` / `<base>/reset-password?token=..`. */
  MAIL_LINK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * The web console as its users reach it: console invitation and password-reset mails link to
   * `<CONSOLE_URL>#/accept-invitation?token=..` and `<CONSOLE_URL>#/reset-password?token=..`.
   */
  CONSOLE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((v) => !v.includes('#'), 'must not have a #fragment (the console adds its own route)')
    .default(DEFAULT_CONSOLE_URL),
  /**
   * 32 bytes (hex or base64) auth seals the link token and code of its verification and reset
   * events with; only auth and mail hold it (or MAIL_ENVELOPE_KEY_FILE).
   */
  MAIL_ENVELOPE_KEY: mailEnvelopeKeySchema,
  /** During a rotation: the key auth used before, still accepted for events sealed with it. */
  MAIL_ENVELOPE_PREVIOUS_KEY: mailEnvelopeKeySchema.optional(),
});

export type MailConfig = Readonly<z.infer<typeof mailConfigSchema>>;

export const loadMailConfig = (e: Record<string, string | undefined> = process.env): MailConfig =>
  loadConfig(mailConfigSchema, e);
