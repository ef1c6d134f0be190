import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The KEY=value lines `npm run up` writes to .stack/env (process env wins). */
export function stackEnv(): Record<string, string> {
  const file = join(ROOT, '.stack', 'env');
  const out: Record<string, string> = {};
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m?.[1]) out[m[1]] = m[2] ?? '';
    }
  }
  for (const k of Object.keys(out)) {
    const v = process.env[k];
    if (v) out[k] = v;
  }
  return out;
}

interface ServiceFacts {
  name: string;
  ownsDatabase: boolean;
  databaseUrlVar?: string;
}

/**
 * The DATABASE_URL the stack gave a data-owning service (its own database, as its own role on
 * PostgreSQL), from .stack/env; undefined for the gateway and the janitor, which own none.
 */
export function stackDatabaseUrl(service: string, env = stackEnv()): string | undefined {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'deploy', 'services.json'), 'utf8')) as {
    services: ServiceFacts[];
  };
  const facts = manifest.services.find((s) => s.name === service);
  if (!facts) throw new Error(`deploy/services.json has no service "${service}"`);
  if (!facts.ownsDatabase || !facts.databaseUrlVar) return undefined;
  const url = env[facts.databaseUrlVar];
  if (!url) throw new Error(`${facts.databaseUrlVar} is not in .stack/env: run \`npm run up\` first`);
  return url;
}

/**
 * A secret the stack generated and handed only to the services that need it (.stack/secrets.env,
 * not .stack/env), for tests that stand in for such a service, e.g. MAIL_ENVELOPE_KEY to seal or
 * open the codes of verification and reset events as auth and mail do (process env wins).
 */
export function stackSecret(name: string): string {
  const fromEnv = process.env[name];
  if (fromEnv) return fromEnv;
  const file = join(ROOT, '.stack', 'secrets.env');
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m?.[1] === name && m[2]) return m[2];
    }
  }
  throw new Error(`${name} is not in .stack/secrets.env: run \`npm run up\` first`);
}

/**
 * The e2e tier's own user on the stack's NATS (`test` in deploy/nats/dev.conf: the JetStream API,
 * events, every subscription, never janitor commands), from .stack/env.
 */
export function stackNatsAuth(env = stackEnv()): { user: string; pass: string } {
  const user = env.NATS_TEST_USER;
  const pass = env.NATS_TEST_PASSWORD;
  if (!user || !pass)
    throw new Error('NATS_TEST_USER/NATS_TEST_PASSWORD are not in .stack/env: run `npm run up`');
  return { user, pass };
}

/**
 * A service's NATS user on the stack's NATS (its password from .stack/secrets.env), as the
 * variables the service reads: for a replica a test starts, or a test standing in for it.
 */
export function stackServiceNats(service: string): { NATS_USER: string; NATS_PASSWORD: string } {
  return { NATS_USER: service, NATS_PASSWORD: stackSecret(`${service.toUpperCase()}_NATS_PASSWORD`) };
}
