import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  ConfigError,
  env,
  loadConfig,
  mailEnvelopeKeySchema,
  MAX_ACCESS_TOKEN_LIFETIME_SECONDS,
  storeEnvShape,
} from '@baas/common';

export const authConfigSchema = z.object({
  ...storeEnvShape,
  PORT: env.port(8081),
  DEFAULT_STORAGE_QUOTA_BYTES: env.int(104857600),
  DEFAULT_DOCUMENT_QUOTA: env.int(100000),
  DEFAULT_MAIL_MONTHLY_LIMIT: env.int(1000),
  // Tokens and sessions (platform contract).
  /** At most what verifiers accept (and keep revocations for): a longer token would be refused. */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ACCESS_TOKEN_LIFETIME_SECONDS)
    .default(900),
  REFRESH_TOKEN_TTL_SECONDS: env.positiveInt(604800),
  REFRESH_REUSE_GRACE_SECONDS: env.int(10),
  /** Absolute lifetime of one login (rotation family), after which the user logs in again. */
  REFRESH_FAMILY_MAX_SECONDS: env.positiveInt(2592000),
  /** How long audit entries are kept (the janitor's purge-expired removes older ones); 0 keeps them all. */
  AUDIT_RETENTION_DAYS: env.int(365),
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
  // Login attempts per account (project + email) per window, beyond the gateway's per-IP limit.
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  LOGIN_ACCOUNT_MAX_ATTEMPTS: env.positiveInt(10),
  LOGIN_ACCOUNT_WINDOW_SECONDS: env.positiveInt(900),
  /** Absolute lifetime of a console session (the `baas_console` cookie), 8 hours. */
  CONSOLE_SESSION_TTL_SECONDS: env.positiveInt(28800),
  /**
   * Key material for what the auth service keeps secret at rest (signing keys, code digests,
   * refresh-token derivation). Required, auth's alone, and different from every other secret
   * (loadAuthConfig refuses to start otherwise).
   */
  AUTH_SECRET: env.secret(32),
  /**
   * During a rotation of AUTH_SECRET only: the previous value. Signing keys it wrapped still sign,
   * and codes and refresh tokens made under it still work, until it is removed (docs/operations.md).
   */
  AUTH_SECRET_PREVIOUS: env.secret(32).optional(),
  /**
   * 32 bytes (hex or base64) that seal the link token and code of a verification or reset event
   * for the mail service; only auth and mail hold it (or MAIL_ENVELOPE_KEY_FILE).
   */
  MAIL_ENVELOPE_KEY: mailEnvelopeKeySchema,
});

export type AuthConfig = Readonly<z.infer<typeof authConfigSchema>>;

type Env = Record<string, string | undefined>;

/** Variables named like a secret (as redactConfig judges them). */
const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|KEY)/i;

/** What a variable holds that could be a secret: its value, its file's, or a URL's password. */
function secretValue(name: string, raw: string): string | undefined {
  if (name.endsWith('_FILE') && SECRET_NAME.test(name.slice(0, -5))) {
    try {
      return readFileSync(raw, 'utf8').trim();
    } catch {
      return undefined; // loadConfig reports the unreadable file
    }
  }
  if (SECRET_NAME.test(name)) return raw.trim();
  if (name.endsWith('_URL')) {
    try {
      return decodeURIComponent(new URL(raw).password) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * AUTH_SECRET wraps the signing keys and keys the code and refresh-token digests: a value that
 * another variable also holds (a secret other services may get too, or the one
 * INTERNAL_ASSERTION_SECRET every service used to share) would give that protection to whoever
 * holds the other one. Compares with every variable named like a secret, its _FILE, and the
 * passwords in URLs.
 */
export function authSecretReuse(secret: string, e: Env): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(e)) {
    if (name === 'AUTH_SECRET' || name === 'AUTH_SECRET_FILE' || !raw) continue;
    if (secretValue(name, raw) === secret)
      problems.push(`AUTH_SECRET: must differ from every other secret (it equals ${name})`);
  }
  return problems;
}

/** Parsed once at boot; a reused AUTH_SECRET is listed with every other problem. */
export const loadAuthConfig = (e: Env = process.env): AuthConfig => {
  const secret =
    e.AUTH_SECRET !== undefined
      ? e.AUTH_SECRET
      : e.AUTH_SECRET_FILE && secretValue('AUTH_SECRET_FILE', e.AUTH_SECRET_FILE);
  const reuse = secret ? authSecretReuse(secret, e) : [];
  let config: AuthConfig;
  try {
    config = loadConfig(authConfigSchema, e);
  } catch (err) {
    if (err instanceof ConfigError && reuse.length > 0) throw new ConfigError([...err.problems, ...reuse]);
    throw err;
  }
  if (reuse.length > 0) throw new ConfigError(reuse);
  return config;
};
