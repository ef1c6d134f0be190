import { randomBytes } from 'node:crypto';
import { generateAssertionKeyPair } from '@baas/common';
import { loadAuthConfig } from './config';

const base = {
  GATEWAY_ASSERTION_PUBLIC_KEY: generateAssertionKeyPair().publicKeyPem,
  AUTH_SECRET: randomBytes(32).toString('base64url'),
  DATABASE_URL: 'postgres://unused/baas_auth',
  MAIL_ENVELOPE_KEY: randomBytes(32).toString('hex'),
};

describe('auth configuration', () => {
  it('accepts an access-token lifetime up to what verifiers accept (900 s), and refuses one past it', () => {
    expect(loadAuthConfig(base).ACCESS_TOKEN_TTL_SECONDS).toBe(900);
    expect(loadAuthConfig({ ...base, ACCESS_TOKEN_TTL_SECONDS: '900' }).ACCESS_TOKEN_TTL_SECONDS).toBe(900);
    expect(loadAuthConfig({ ...base, ACCESS_TOKEN_TTL_SECONDS: '60' }).ACCESS_TOKEN_TTL_SECONDS).toBe(60);
    // data and storage refuse longer tokens and keep revocations only this long
    expect(() => loadAuthConfig({ ...base, ACCESS_TOKEN_TTL_SECONDS: '901' })).toThrow(
      /ACCESS_TOKEN_TTL_SECONDS/,
    );
  });

  it('keeps audit entries 365 days unless told otherwise; 0 keeps them all; a negative value is refused', () => {
    expect(loadAuthConfig(base).AUDIT_RETENTION_DAYS).toBe(365);
    expect(loadAuthConfig({ ...base, AUDIT_RETENTION_DAYS: '0' }).AUDIT_RETENTION_DAYS).toBe(0);
    expect(loadAuthConfig({ ...base, AUDIT_RETENTION_DAYS: '3650' }).AUDIT_RETENTION_DAYS).toBe(3650);
    expect(() => loadAuthConfig({ ...base, AUDIT_RETENTION_DAYS: '-1' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
