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
