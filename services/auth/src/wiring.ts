import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  createAccessTokenVerifier,
  dependencyMetrics,
  instrumentRedis,
  type Closer,
  type EventPublisher,
  type Logger,
  type Metrics,
  type ProcessedEvents,
  type ServiceStore,
} from '@baas/common';
import type { AuthConfig } from './config';
import type { AuthDeps } from './domain/deps';
import {
  CONSOLE_RESET_CODE_TTL_SECONDS,
  INVITATION_TTL_SECONDS,
  type ConsoleDeps,
} from './domain/console/deps';
import type {
  AuditLog,
  CacheInvalidator,
  CodeClaims,
  IdGenerator,
  ProjectRepository,
  SessionRepository,
  UserRepository,
  UsersSchemaRepository,
} from './ports';
import { deriveAuthKeys } from './domain/crypto/secrets';
import { KeyStore } from './domain/keys/key-store';
import { authErrors } from './domain/users/auth-errors';
import { Argon2Hasher } from './adapters/argon2-hasher';
import { RedisLoginThrottle } from './adapters/redis-login-throttle';
import type { OutboxRelayLoop, RelayOptions, StoreAdapters } from './adapters/store-adapters';
import { ensureAuthIndexes } from './adapters/indexes';
import { authMetrics } from './metrics';

type AuthSettings = Pick<
  AuthConfig,
  | 'AUTH_SECRET'
  | 'AUTH_SECRET_PREVIOUS'
  | 'MAIL_ENVELOPE_KEY'
  | 'ACCESS_TOKEN_TTL_SECONDS'
  | 'REFRESH_TOKEN_TTL_SECONDS'
  | 'REFRESH_REUSE_GRACE_SECONDS'
  | 'REFRESH_FAMILY_MAX_SECONDS'
  | 'VERIFICATION_CODE_TTL_SECONDS'
  | 'RESET_CODE_TTL_SECONDS'
  | 'CODE_MAX_ATTEMPTS'
  | 'CODE_RESEND_INTERVAL_SECONDS'
  | 'ARGON2_MEMORY_KIB'
  | 'ARGON2_TIME_COST'
  | 'ARGON2_PARALLELISM'
  | 'PASSWORD_HASH_CONCURRENCY'
  | 'PASSWORD_HASH_QUEUE_MAX'
  | 'REDIS_URL'
  | 'LOGIN_ACCOUNT_MAX_ATTEMPTS'
  | 'LOGIN_ACCOUNT_WINDOW_SECONDS'
  | 'CONSOLE_SESSION_TTL_SECONDS'
>;

export interface AuthWiring {
  /** What the end-user use cases need. */
  deps: AuthDeps;
  projects: ProjectRepository;
  projectIds: IdGenerator;
  users: UserRepository;
  sessions: SessionRepository;
  schemas: UsersSchemaRepository;
  claims: CodeClaims;
  /** Not started: the process starts it (tests drain it with `flush`). */
  relay: OutboxRelayLoop;
  processed: ProcessedEvents;
  /** The audit log of every service's admin actions (fed by `audit.recorded`). */
  audit: AuditLog;
  /** What the console use cases need (accounts, sessions, memberships, invitations). */
  console: ConsoleDeps;
  /** The relay and the key store's timer; the database itself belongs to whoever connected it. */
  closers: Closer[];
}

export interface WiringOptions extends RelayOptions {
  clock?: () => Date;
  /** Create the store's indexes (MongoDB) now; false when the setup Job did (DB_MIGRATE_ON_BOOT=false). */
  setUp?: boolean;
  /** The process's registry: argon2 and login metrics are recorded there. */
  metrics?: Metrics;
  /** Core NATS invalidation of gateways' caches (none in tests that do not look). */
  invalidator?: CacheInvalidator;
}

const NO_INVALIDATION: CacheInvalidator = {
  projectChanged: () => undefined,
  consoleAccountChanged: () => undefined,
};

/**
 * Builds the auth service on the store `DATABASE_URL` named: the store's adapters (the other
 * store's driver is never loaded), the outbox relay publishing to `publisher`, the key store,
 * the hasher and the policy. `main.ts` and the integration harness both call this.
 */
export async function wireAuth(
  store: ServiceStore,
  config: AuthSettings,
  logger: Logger,
  publisher: EventPublisher,
  opts: WiringOptions = {},
): Promise<AuthWiring> {
  const clock = opts.clock ?? (() => new Date());
  if (opts.setUp !== false) await ensureAuthIndexes(store);
  const adapters = await storeAdapters(store, publisher, logger, opts);
  const secrets = deriveAuthKeys(config.AUTH_SECRET, config.AUTH_SECRET_PREVIOUS);
  const keys = new KeyStore(adapters.signingKeys, secrets.signingKeyWrap, logger, clock, [
    ...(secrets.previous ? [secrets.previous.signingKeyWrap] : []),
  ]);
  await keys.init();
  const observed = opts.metrics ? authMetrics(opts.metrics) : undefined;
  const hasher = new Argon2Hasher(
    {
      memoryCost: config.ARGON2_MEMORY_KIB,
      timeCost: config.ARGON2_TIME_COST,
      parallelism: config.ARGON2_PARALLELISM,
    },
    {
      concurrency: config.PASSWORD_HASH_CONCURRENCY,
      queueMax: config.PASSWORD_HASH_QUEUE_MAX,
      onBusy: authErrors.busy,
      observer: observed?.hasher,
    },
  );
  await hasher.init();
  const redis = loginRedis(config.REDIS_URL, logger);
  if (opts.metrics) instrumentRedis(redis, dependencyMetrics(opts.metrics));
  const loginThrottle = new RedisLoginThrottle(
    redis,
    config.LOGIN_ACCOUNT_MAX_ATTEMPTS,
    config.LOGIN_ACCOUNT_WINDOW_SECONDS,
  );
  const { users, sessions, schemas, claims, relay, audit } = adapters;
  const deps: AuthDeps = {
    audit,
    users,
    sessions,
    schemas,
    claims,
    hasher,
    loginThrottle,
    keys,
    verifier: createAccessTokenVerifier(keys.verificationKey, config.ACCESS_TOKEN_TTL_SECONDS),
    secrets,
    mailEnvelopeKey: config.MAIL_ENVELOPE_KEY,
    clock,
    ids: { userId: adapters.ids.userId, familyId: () => randomBytes(16).toString('hex') },
    observer: observed?.auth,
    policy: {
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
      refreshReuseGraceSeconds: config.REFRESH_REUSE_GRACE_SECONDS,
      refreshFamilyMaxSeconds: config.REFRESH_FAMILY_MAX_SECONDS,
      verificationCodeTtlSeconds: config.VERIFICATION_CODE_TTL_SECONDS,
      resetCodeTtlSeconds: config.RESET_CODE_TTL_SECONDS,
      codeMaxAttempts: config.CODE_MAX_ATTEMPTS,
      codeResendIntervalSeconds: config.CODE_RESEND_INTERVAL_SECONDS,
    },
  };
  const consoleDeps: ConsoleDeps = {
    ...adapters.console,
    projects: adapters.projects,
    hasher,
    loginThrottle,
    invalidator: opts.invalidator ?? NO_INVALIDATION,
    audit,
    mailEnvelopeKey: config.MAIL_ENVELOPE_KEY,
    clock,
    ids: { id: adapters.ids.userId },
    observer: observed?.console,
    policy: {
      sessionTtlSeconds: config.CONSOLE_SESSION_TTL_SECONDS,
      invitationTtlSeconds: INVITATION_TTL_SECONDS,
      resetCodeTtlSeconds: CONSOLE_RESET_CODE_TTL_SECONDS,
      resetResendIntervalSeconds: config.CODE_RESEND_INTERVAL_SECONDS,
    },
  };
  return {
    deps,
    projects: adapters.projects,
    projectIds: adapters.ids.project,
    users,
    sessions,
    schemas,
    claims,
    relay,
    processed: adapters.processed,
    audit,
    console: consoleDeps,
    closers: [
      { name: 'keys', close: () => Promise.resolve(keys.stop()) },
      { name: 'outbox', close: () => relay.stop() },
      { name: 'redis', close: async () => void (await redis.quit().catch(() => redis.disconnect())) },
    ],
  };
}

/**
 * Fails fast, as the gateway's does: a command that cannot run now goes to the throttle's
 * in-process limiter instead of waiting for Redis.
 */
function loginRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 250,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    // Commands issued in the same tick (a successful login's two deletes, the throttle checks of
    // logins that arrive together) go to Redis in one write: fewer loopback syscalls and wake-ups.
    enableAutoPipelining: true,
  });
  redis.on('error', (err) => logger.debug({ err }, 'redis error'));
  return redis;
}

async function storeAdapters(
  store: ServiceStore,
  publisher: EventPublisher,
  logger: Logger,
  opts: RelayOptions,
): Promise<StoreAdapters> {
  switch (store.kind) {
    case 'postgres': {
      const { postgresAdapters } = await import('./adapters/postgres-adapters');
      return postgresAdapters(store.pool, publisher, logger, opts);
    }
    case 'mongodb': {
      const { mongoAdapters } = await import('./adapters/mongo-adapters');
      return mongoAdapters(store.db, publisher, logger, opts);
    }
  }
}
