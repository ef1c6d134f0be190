import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, generateAssertionKeyPair } from '@baas/common';
import { loadAuthConfig } from './config';

/** Issue 12 item 2: AUTH_SECRET is required, auth's own, and no other secret's twin. */
const secret = () => randomBytes(32).toString('base64url');
const AUTH_SECRET = secret();
const base = {
  GATEWAY_ASSERTION_PUBLIC_KEY: generateAssertionKeyPair().publicKeyPem,
  DATABASE_URL: 'postgres://baas_auth:db-password-0123456789@db/baas_auth',
  MAIL_ENVELOPE_KEY: randomBytes(32).toString('hex'),
  AUTH_SECRET,
};

function problems(env: Record<string, string | undefined>): string[] {
  try {
    loadAuthConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('AUTH_SECRET', () => {
  it('starts with its own secret of 32 characters or more, and not with 31', () => {
    expect(loadAuthConfig(base).AUTH_SECRET).toBe(AUTH_SECRET);
    expect(problems({ ...base, AUTH_SECRET: 'x'.repeat(32) })).toEqual([]);
    expect(problems({ ...base, AUTH_SECRET: 'x'.repeat(31) })).toEqual([
      expect.stringMatching(/^AUTH_SECRET: must be at least 32 characters/),
    ]);
  });

  it('refuses to start without it: there is no fallback to another secret', () => {
    const rest = { ...base, AUTH_SECRET: undefined };
    expect(problems(rest)).toEqual([expect.stringMatching(/^AUTH_SECRET: /)]);
    // not even the shared secret of before
    expect(problems({ ...rest, INTERNAL_ASSERTION_SECRET: secret() })).toEqual([
      expect.stringMatching(/^AUTH_SECRET: /),
    ]);
  });

  it('refuses to start when it equals another secret it can see', () => {
    for (const other of [
      'MAIL_ENVELOPE_KEY',
      'INTERNAL_ASSERTION_SECRET',
      'PLATFORM_ADMIN_TOKEN',
      'NATS_PASSWORD',
      'SMTP_PASSWORD',
    ]) {
      const env = { ...base, [other]: AUTH_SECRET };
      expect(problems(env)).toContain(
        `AUTH_SECRET: must differ from every other secret (it equals ${other})`,
      );
    }
  });

  it('refuses to start when it equals a password in a URL or a secret mounted as a file', () => {
    const dbPassword = 'db-password-0123456789-0123456789';
    expect(
      problems({
        ...base,
        AUTH_SECRET: dbPassword,
        DATABASE_URL: `postgres://baas_auth:${dbPassword}@db/baas_auth`,
      }),
    ).toContain('AUTH_SECRET: must differ from every other secret (it equals DATABASE_URL)');
    const dir = mkdtempSync(join(tmpdir(), 'auth-secret-'));
    try {
      writeFileSync(join(dir, 'MAIL_ENVELOPE_KEY'), `${AUTH_SECRET}\n`);
      writeFileSync(join(dir, 'AUTH_SECRET'), `${AUTH_SECRET}\n`);
      expect(
        problems({
          ...base,
          AUTH_SECRET: undefined,
          MAIL_ENVELOPE_KEY: undefined,
          AUTH_SECRET_FILE: join(dir, 'AUTH_SECRET'),
          MAIL_ENVELOPE_KEY_FILE: join(dir, 'MAIL_ENVELOPE_KEY'),
        }),
      ).toContain('AUTH_SECRET: must differ from every other secret (it equals MAIL_ENVELOPE_KEY_FILE)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts with a secret that merely shares a prefix with another', () => {
    expect(problems({ ...base, PLATFORM_ADMIN_TOKEN: `${AUTH_SECRET}x` })).toEqual([]);
  });
});
