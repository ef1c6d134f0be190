import { randomBytes } from 'node:crypto';
import { ObjectId, type Collection, type Db } from 'mongodb';
import { createAccessTokenVerifier, type Logger } from '@baas/common';
import type { AuthConfig } from './config';
import type { AuthDeps } from './domain/deps';
import { deriveAuthKeys } from './domain/crypto/secrets';
import { KeyStore } from './domain/keys/key-store';
import { authErrors } from './domain/users/auth-errors';
import { MongoUserRepository } from './adapters/mongo-user-repository';
import { MongoSessionRepository } from './adapters/mongo-session-repository';
import { MongoSigningKeyRepository } from './adapters/mongo-signing-key-repository';
import { MongoUsersSchemaRepository } from './adapters/mongo-users-schema-repository';
import { Argon2Hasher } from './adapters/argon2-hasher';
import { MongoCodeClaims } from './adapters/mongo-code-claims';

type AuthSettings = Pick<
  AuthConfig,
  | 'INTERNAL_ASSERTION_SECRET'
  | 'AUTH_SECRET'
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
>;

export interface AuthWiring {
  deps: AuthDeps;
  users: MongoUserRepository;
  sessions: MongoSessionRepository;
  schemas: MongoUsersSchemaRepository;
  claims: MongoCodeClaims;
  /** Collections whose documents may carry outbox events. */
  outboxCollections: Collection[];
}

/** Builds the end-user auth side on one database: repositories, key store, hasher, policy. */
export async function wireAuth(
  db: Db,
  config: AuthSettings,
  logger: Logger,
  afterEventWrite?: (coll: Collection, id: unknown) => void,
  clock: () => Date = () => new Date(),
): Promise<AuthWiring> {
  const secrets = deriveAuthKeys(config.AUTH_SECRET ?? config.INTERNAL_ASSERTION_SECRET);
  const users = new MongoUserRepository(db, afterEventWrite);
  const sessions = new MongoSessionRepository(db);
  const schemas = new MongoUsersSchemaRepository(db);
  const claims = new MongoCodeClaims(db);
  await claims.ensureIndexes();
  await users.ensureIndexes();
  await sessions.ensureIndexes();
  const keys = new KeyStore(new MongoSigningKeyRepository(db), secrets.signingKeyWrap, logger, clock);
  await keys.init();
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
    },
  );
  await hasher.init();
  const deps: AuthDeps = {
    users,
    sessions,
    schemas,
    claims,
    hasher,
    keys,
    verifier: createAccessTokenVerifier(keys.verificationKey, config.ACCESS_TOKEN_TTL_SECONDS),
    secrets,
    clock,
    ids: {
      userId: () => new ObjectId().toHexString(),
      familyId: () => randomBytes(16).toString('hex'),
    },
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
  return { deps, users, sessions, schemas, claims, outboxCollections: [users.relayCollection] };
}
