import { Socket } from 'node:net';

/**
 * Integration tests use the real servers. When one is not reachable the test fails with what
 * to start; it never skips.
 */
const TEST_STORE: 'mongodb' | 'postgres' = process.env.TEST_STORE === 'mongodb' ? 'mongodb' : 'postgres';

export const infra = {
  mongoUrl: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017',
  /** A role that may create databases: each suite gets a database of its own. */
  postgresAdminUrl: process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  /** Which store the integration tier runs the services' adapters on (CI runs both). */
  store: TEST_STORE,
  /**
   * A NATS without users (the machine's own on 4222): the integration tier publishes every event
   * type and sends janitor commands, which the stack's authenticated NATS (NATS_URL in .stack/env,
   * the e2e tier's) refuses to any single user. TEST_NATS_URL points elsewhere.
   */
  natsUrl: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  s3Endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:7070',
  s3AccessKeyId: process.env.S3_ACCESS_KEY_ID ?? 'baas',
  s3SecretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? 'baas-secret-key',
  smtpHost: process.env.SMTP_HOST ?? '127.0.0.1',
  smtpPort: Number(process.env.SMTP_PORT ?? 1025),
  mailApiUrl: process.env.MAIL_API_URL ?? 'http://127.0.0.1:8025',
};

type Need = 'mongo' | 'postgres' | 'nats' | 'redis' | 's3' | 'smtp';

function hostPort(url: string, defPort: number): [string, number] {
  const u = new URL(url.replace(/^(mongodb|postgres|postgresql|nats|redis):/, 'http:'));
  return [u.hostname, Number(u.port || defPort)];
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(1500);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(false));
    s.connect(port, host);
  });
}

export async function requireInfra(...needs: Need[]): Promise<void> {
  const where: Record<Need, [string, number]> = {
    mongo: hostPort(infra.mongoUrl, 27017),
    postgres: hostPort(infra.postgresAdminUrl, 5432),
    nats: hostPort(infra.natsUrl, 4222),
    redis: hostPort(infra.redisUrl, 6379),
    s3: hostPort(infra.s3Endpoint, 80),
    smtp: [infra.smtpHost, infra.smtpPort],
  };
  const missing: string[] = [];
  for (const n of needs) {
    const [h, p] = where[n];
    if (!(await reachable(h, p))) missing.push(`${n} at ${h}:${p}`);
  }
  if (missing.length > 0)
    throw new Error(
      `Integration tests need real infrastructure, not reachable: ${missing.join(', ')}. ` +
        'Start it with `npm run up -- --infra-only` (or `npm run up`), or point MONGO_URL/POSTGRES_ADMIN_URL/TEST_NATS_URL (a NATS with JetStream and no users, e.g. `nats-server -js`)/REDIS_URL/S3_ENDPOINT/SMTP_HOST at running servers.',
    );
}

/** A database name no other test uses. */
export function uniqueDbName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The database server the integration tier's store needs (TEST_STORE). */
export function storeNeed(): Need {
  return infra.store === 'mongodb' ? 'mongo' : 'postgres';
}

/**
 * `describe` for a suite about one store's adapters (MongoDB's outbox in documents, say): it runs
 * in that store's pass of the tiers (TEST_STORE; CI runs both), and in the other pass says on the
 * console where it runs instead.
 */
export function describeOnStore(store: 'mongodb' | 'postgres', name: string, fn: () => void): void {
  if (infra.store === store) {
    describe(name, fn);
    return;
  }
  console.warn(`Runs in the TEST_STORE=${store} pass, not this one (${infra.store}): ${name}`);
  describe.skip(name, fn);
}
