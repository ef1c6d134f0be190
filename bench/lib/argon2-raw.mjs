// The ceiling a login can reach here: argon2id verify at the auth service's parameters (read from
// services/auth/src/config.ts, overridden by the stack's environment), on this machine, with as
// many verifies in flight as the service allows (PASSWORD_HASH_CONCURRENCY), and nothing else.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workspaceModule } from './workspace-module.mjs';

const argon2 = workspaceModule('services/auth', 'argon2');

const CONFIG = fileURLToPath(new URL('../../services/auth/src/config.ts', import.meta.url));

/** The auth service's argon2 parameters and hashing concurrency (defaults of its config). */
export function authArgon2Params(env = {}) {
  const src = fs.readFileSync(CONFIG, 'utf8');
  const def = (name) => {
    const m = new RegExp(`${name}:\\s*env\\.\\w+\\((\\d+)`).exec(src);
    if (!m) throw new Error(`${name} not found in services/auth/src/config.ts`);
    return Number(env[name] ?? process.env[name] ?? m[1]);
  };
  return {
    memoryCost: def('ARGON2_MEMORY_KIB'),
    timeCost: def('ARGON2_TIME_COST'),
    parallelism: def('ARGON2_PARALLELISM'),
    concurrency: def('PASSWORD_HASH_CONCURRENCY'),
  };
}

/** argon2id verifies per second over `seconds`, `concurrency` at a time. */
export async function rawArgon2(params, seconds) {
  const { concurrency, ...cost } = params;
  const options = { type: argon2.argon2id, ...cost, hashLength: 32, saltLength: 16 };
  const password = 'bench-password-123456';
  const hash = await argon2.hash(password, options);
  await argon2.verify(hash, password); // warm-up
  let done = 0;
  const started = process.hrtime.bigint();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        if (!(await argon2.verify(hash, password))) throw new Error('argon2 verify failed');
        done++;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { ...params, verifies: done, seconds: elapsed, perSecond: done / elapsed };
}

/** One figure from several measurements (one per round): all verifies over all their seconds. */
export function combineRaw(rounds) {
  const verifies = rounds.reduce((n, r) => n + r.verifies, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  return {
    ...rounds[0],
    verifies,
    seconds,
    perSecond: verifies / seconds,
    rounds: rounds.map((r) => r.perSecond),
  };
}
