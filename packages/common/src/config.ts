import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { assertionPublicKeySchema } from './assertion';
import { databaseUrlSchema } from './store';
import {
  DEFAULT_PROCESSED_EVENTS_RETENTION_SECONDS,
  MIN_PROCESSED_EVENTS_RETENTION_SECONDS,
} from './janitor';

/**
 * Config is parsed once at boot into a frozen object. Every variable may also be given as
 * NAME_FILE (a mounted secret). All problems are reported together in one error.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function resolveFileVariants(env: Env, keys: string[]): { env: Env; problems: string[] } {
  const out: Env = { ...env };
  const problems: string[] = [];
  for (const key of keys) {
    const file = env[`${key}_FILE`];
    if (file && env[key] === undefined) {
      try {
        out[key] = readFileSync(file, 'utf8').trim();
      } catch (e) {
        problems.push(`${key}_FILE: cannot read ${file} (${(e as Error).message})`);
      }
    }
  }
  return { env: out, problems };
}

export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): Readonly<z.infer<S>> {
  const keys = Object.keys(schema.shape);
  const { env: resolved, problems } = resolveFileVariants(env, keys);
  const input: Record<string, string | undefined> = {};
  for (const key of keys) {
    const v = resolved[key];
    input[key] = v === '' ? undefined : v;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return Object.freeze(parsed.data);
}

const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|KEY)/i;
/** `user:password@` in a URL, and a `password=` query parameter (libpq and the MongoDB driver take both). */
const URL_PASSWORD = /\/\/([^:/@]*):[^@/]*@/;
const QUERY_PASSWORD = /([?&](?:password|pass)=)[^&]*/gi;

function redactString(v: string): string {
  return v.replace(URL_PASSWORD, '//$1:[redacted]@').replace(QUERY_PASSWORD, '$1[redacted]');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function redactValue(key: string, v: unknown): unknown {
  if (SECRET_NAME.test(key)) return v === undefined ? undefined : '[redacted]';
  if (typeof v === 'string') return redactString(v);
  if (Array.isArray(v)) return v.map((item) => redactValue('', item));
  if (isPlainObject(v)) return redactConfig(v);
  return v;
}

/**
 * For logging the effective config at boot without leaking secrets: values under a secret's name,
 * and passwords inside URLs, at any depth (a parsed variable such as DATABASE_URL is an object
 * holding the URL by then).
 */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) out[k] = redactValue(k, v);
  return out;
}

/** Building blocks for service config schemas. */
export const env = {
  port: (def: number) => z.coerce.number().int().min(1).max(65535).default(def),
  int: (def: number, min = 0) => z.coerce.number().int().min(min).default(def),
  positiveInt: (def: number) => z.coerce.number().int().min(1).default(def),
  url: (def?: string) => (def === undefined ? z.url() : z.url().default(def)),
  string: (def?: string) => (def === undefined ? z.string().min(1) : z.string().min(1).default(def)),
  secret: (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

const optionalPath = () => z.string().min(1).optional();

/**
 * How a process reaches NATS: the server(s), its own user (NATS_USER + NATS_PASSWORD or
 * NATS_PASSWORD_FILE) or a decentralized-auth credentials file (NATS_CREDS_FILE), and TLS (a CA
 * to verify the server, a client certificate and key for mutual TLS). Every service has a user of
 * its own whose permissions allow only what it does (deploy/nats/permissions.conf).
 */
export const natsEnvShape = {
  NATS_URL: env.string('nats://127.0.0.1:4222'),
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_CREDS_FILE: optionalPath(),
  NATS_TLS_CA_FILE: optionalPath(),
  NATS_TLS_CERT_FILE: optionalPath(),
  NATS_TLS_KEY_FILE: optionalPath(),
};

/** Variables every backend process reads. */
export const serviceEnvShape = {
  ...natsEnvShape,
  /** JetStream replicas of the event streams: 1 on a single server, 3 on a production cluster. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** The gateway's Ed25519 public key (PEM SPKI): verifies assertions, cannot sign them. */
  GATEWAY_ASSERTION_PUBLIC_KEY: assertionPublicKeySchema,
  /**
   * During a rotation of the gateway's key pair only: the previous public key, still accepted
   * until every gateway replica signs with the new private key (docs/operations.md).
   */
  GATEWAY_ASSERTION_PREVIOUS_PUBLIC_KEY: assertionPublicKeySchema.optional(),
  /** Refused here: whoever holds the signing key can speak for every caller. */
  GATEWAY_ASSERTION_PRIVATE_KEY: z.undefined({
    error: "the gateway's signing key: no service but the gateway may hold it",
  }),
  LOG_LEVEL: env.logLevel(),
  SHUTDOWN_GRACE_SECONDS: env.int(10),
};

/** Variables of a service that owns a database: the store is chosen by DATABASE_URL alone. */
export const storeEnvShape = {
  ...serviceEnvShape,
  DATABASE_URL: databaseUrlSchema,
  /**
   * Set up at boot: apply pending migrations (PostgreSQL), create indexes (MongoDB) and create or
   * update the JetStream streams. Off when the setup Job does it (`services/<svc>/dist/setup.js`):
   * the process then only checks that the streams exist.
   */
  DB_MIGRATE_ON_BOOT: env.bool(true),
  /** Idempotency records older than this are pruned on the janitor's command (45 days; at least 31). */
  PROCESSED_EVENTS_RETENTION_SECONDS: env.int(
    DEFAULT_PROCESSED_EVENTS_RETENTION_SECONDS,
    MIN_PROCESSED_EVENTS_RETENTION_SECONDS,
  ),
};

/** What a service's one-shot setup reads (the setup Job): its store and NATS, nothing secret else. */
export const setupEnvShape = {
  ...natsEnvShape,
  DATABASE_URL: databaseUrlSchema,
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  LOG_LEVEL: env.logLevel(),
};
