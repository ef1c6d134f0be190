// The environment the stack hands out: .stack/env (clients and tests) and each service's own.
import path from 'node:path';
import { DATA, DATA_SERVICES, ENV_FILE, GATEWAY_PORT, S3_BUCKET, S3_REGION, SERVICES } from './context.mjs';
import { natsCredentials } from './nats.mjs';
import { GATEWAY_ASSERTION_KEYS, GENERATED_SECRETS } from './secrets.mjs';
import { HOST, writeEnvFile } from './util.mjs';

/**
 * @typedef {{natsPort: number, redisPort: number, s3Port: number, smtpPort: number,
 *   mailpitPort: number, servicePorts: Record<string, number>}} Endpoints
 * @typedef {{store: 'postgres' | 'mongodb', urls: Record<string, string>, adminUrl?: string,
 *   mongoUrl?: string}} Databases  each data-owning service's DATABASE_URL by name
 */

/**
 * .stack/env: plain KEY=value lines (clients parse it naively). Holds the development secrets
 * (admin token, database URLs; not the gateway's signing key nor AUTH_SECRET): the file is
 * readable by its owner only.
 * @param {Endpoints} ep
 * @param {Databases} db
 */
export function writeStackEnv(ep, secrets, mode, db) {
  const env = {
    BASE_URL: `http://${HOST}:${GATEWAY_PORT}`,
    PLATFORM_ADMIN_TOKEN: secrets.PLATFORM_ADMIN_TOKEN,
    MAIL_API_URL: `http://${HOST}:${ep.mailpitPort}`,
    STORE: db.store,
    POSTGRES_ADMIN_URL: db.adminUrl,
    MONGO_URL: db.mongoUrl,
    NATS_URL: `nats://${HOST}:${ep.natsPort}`,
    REDIS_URL: `redis://${HOST}:${ep.redisPort}`,
    S3_ENDPOINT: `http://${HOST}:${ep.s3Port}`,
    S3_REGION,
    S3_BUCKET,
    S3_ACCESS_KEY_ID: secrets.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: secrets.S3_SECRET_ACCESS_KEY,
    SMTP_HOST: HOST,
    SMTP_PORT: String(ep.smtpPort),
    // public: verifies gateway assertions (the private half and AUTH_SECRET are in secrets.env only)
    GATEWAY_ASSERTION_PUBLIC_KEY: secrets.GATEWAY_ASSERTION_PUBLIC_KEY,
    // the e2e tier's NATS user (deploy/nats/dev.conf); the services' own are in secrets.env only
    NATS_TEST_USER: 'test',
    NATS_TEST_PASSWORD: secrets.TEST_NATS_PASSWORD,
  };
  for (const s of DATA_SERVICES) env[s.databaseUrlVar] = db.urls[s.name];
  for (const s of SERVICES) {
    if (s.name !== 'gateway') env[s.urlVar] = `http://${HOST}:${ep.servicePorts[s.name]}`;
  }
  env.GATEWAY_PORT = String(GATEWAY_PORT);
  env.STACK_MODE = mode;
  writeEnvFile(ENV_FILE, env);
}

/** Credentials a service must not inherit from the caller: the admin's and the other roles'. */
const NOT_FOR_SERVICES = new Set([
  'POSTGRES_ADMIN_URL',
  'MONGO_URL',
  'MONGO_DB',
  // NATS: each service gets its own user below, nothing of the caller's
  'NATS_TEST_PASSWORD',
  'NATS_PASSWORD_FILE',
  'NATS_CREDS_FILE',
  // every generated secret reaches only the services named below (the admin token the gateway,
  // the signing key the gateway, AUTH_SECRET auth), never through the caller's environment
  ...GENERATED_SECRETS,
  ...GATEWAY_ASSERTION_KEYS,
  'INTERNAL_ASSERTION_SECRET',
  ...DATA_SERVICES.map((s) => s.databaseUrlVar),
]);

/** The services that take requests from the gateway (the janitor takes none). */
const ASSERTION_VERIFIERS = ['auth', 'data', 'storage', 'mail'];

/**
 * A service's environment (native mode): the caller's (every contract variable it set), less
 * other roles' credentials, plus the service's own settings.
 * @param {import('./context.mjs').ServiceFacts} svc
 * @param {Endpoints} ep
 * @param {Databases} db
 */
export function serviceEnv(svc, ep, secrets, db) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    // a secret's _FILE variant is the secret too
    const held = NOT_FOR_SERVICES.has(k) || NOT_FOR_SERVICES.has(k.replace(/_FILE$/, ''));
    if (!k.startsWith('npm_') && !held) env[k] = v;
  }
  delete env.DATABASE_URL;
  const url = (name) => `http://${HOST}:${ep.servicePorts[name]}`;
  Object.assign(env, {
    PORT: String(svc.port),
    NATS_URL: `nats://${HOST}:${ep.natsPort}`,
    REDIS_URL: `redis://${HOST}:${ep.redisPort}`,
    LOG_LEVEL: process.env.LOG_LEVEL || 'info',
    // its own NATS user, never another's (deploy/nats/permissions.conf)
    ...natsCredentials(svc.name, secrets),
  });
  if (svc.ownsDatabase) env.DATABASE_URL = db.urls[svc.name];
  // the gateway's upstreams; data also reads AUTH_URL (the JWKS of end-user tokens)
  for (const s of SERVICES) if (s.name !== 'gateway') env[s.urlVar] = url(s.name);
  if (svc.name === 'gateway') {
    Object.assign(env, {
      GATEWAY_PORT: String(GATEWAY_PORT),
      PLATFORM_ADMIN_TOKEN: secrets.PLATFORM_ADMIN_TOKEN,
    });
  }
  if (svc.name === 'storage') {
    Object.assign(env, {
      S3_ENDPOINT: `http://${HOST}:${ep.s3Port}`,
      S3_REGION,
      S3_BUCKET,
      S3_ACCESS_KEY_ID: secrets.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: secrets.S3_SECRET_ACCESS_KEY,
      STORAGE_DRIVER: process.env.STORAGE_DRIVER || 's3',
      STORAGE_LOCAL_DIR: process.env.STORAGE_LOCAL_DIR || path.join(DATA, 'files'),
      PUBLIC_FILES_BASE_URL: process.env.PUBLIC_FILES_BASE_URL || `http://${HOST}:${GATEWAY_PORT}/files`,
    });
  }
  // the gateway alone signs assertions; the services behind it verify them with the public half
  if (svc.name === 'gateway') env.GATEWAY_ASSERTION_PRIVATE_KEY = secrets.GATEWAY_ASSERTION_PRIVATE_KEY;
  if (ASSERTION_VERIFIERS.includes(svc.name))
    env.GATEWAY_ASSERTION_PUBLIC_KEY = secrets.GATEWAY_ASSERTION_PUBLIC_KEY;
  if (svc.name === 'auth') env.AUTH_SECRET = secrets.AUTH_SECRET;
  // only the two ends of the sealed verification and reset codes hold their key
  if (svc.name === 'auth' || svc.name === 'mail') env.MAIL_ENVELOPE_KEY = secrets.MAIL_ENVELOPE_KEY;
  if (svc.name === 'mail') {
    Object.assign(env, {
      SMTP_HOST: HOST,
      SMTP_PORT: String(ep.smtpPort),
      MAIL_FROM: process.env.MAIL_FROM || 'no-reply@baas.local',
      // console invitation and password-reset mails link into the gateway's console
      CONSOLE_URL: process.env.CONSOLE_URL || `http://${HOST}:${GATEWAY_PORT}/console/`,
    });
  }
  return env;
}
