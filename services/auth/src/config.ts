import { z } from 'zod';
import { env, loadConfig, storeEnvShape } from '@baas/common';

export const authConfigSchema = z.object({
  ...storeEnvShape,
  PORT: env.port(8081),
  DEFAULT_STORAGE_QUOTA_BYTES: env.int(104857600),
  DEFAULT_DOCUMENT_QUOTA: env.int(100000),
  DEFAULT_MAIL_MONTHLY_LIMIT: env.int(1000),
  // Tokens and sessions (platform contract).
  ACCESS_TOKEN_TTL_SECONDS: env.positiveInt(900),
  REFRESH_TOKEN_TTL_SECONDS: env.positiveInt(604800),
  REFRESH_REUSE_GRACE_SECONDS: env.int(10),
  /** Absolute lifetime of one login (rotation family), after which the user logs in again. */
  REFRESH_FAMILY_MAX_SECONDS: env.positiveInt(2592000),
  // One-time codes.
  VERIFICATION_CODE_TTL_SECONDS: env.positiveInt(86400),
  RESET_CODE_TTL_SECONDS: env.positiveInt(1800),
  CODE_MAX_ATTEMPTS: env.positiveInt(5),
  /** A new reset mail for the same account is not sent within this many seconds of the last. */
  CODE_RESEND_INTERVAL_SECONDS: env.int(30),
  // Password hashing (argon2id; OWASP floor m=19456 KiB, t=2, p=1).
  ARGON2_MEMORY_KIB: env.int(19456, 19456),
  ARGON2_TIME_COST: env.int(2, 2),
  ARGON2_PARALLELISM: env.positiveInt(1),
  PASSWORD_HASH_CONCURRENCY: env.positiveInt(2),
  PASSWORD_HASH_QUEUE_MAX: env.positiveInt(64),
  /**
   * Key material for what the auth service keeps secret at rest (signing keys, code digests,
   * refresh-token derivation). Defaults to INTERNAL_ASSERTION_SECRET; set it to separate the two.
   */
  AUTH_SECRET: env.secret(32).optional(),
});

export type AuthConfig = Readonly<z.infer<typeof authConfigSchema>>;

export const loadAuthConfig = (e: Record<string, string | undefined> = process.env): AuthConfig =>
  loadConfig(authConfigSchema, e);
