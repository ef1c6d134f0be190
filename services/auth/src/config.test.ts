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
  it('accepts an access-token lifetime up to what verifiers accept (3600 s), and refuses one past it', () => {
    expect(loadAuthConfig({ ...base, ACCESS_TOKEN_TTL_SECONDS: '3600' }).ACCESS_TOKEN_TTL_SECONDS).toBe(3600);
    // data and storage refuse longer tokens and keep revocations only this long
    expect(() => loadAuthConfig({ ...base, ACCESS_TOKEN_TTL_SECONDS: '3601' })).toThrow(
      /ACCESS_TOKEN_TTL_SECONDS/,
    );
  });
});
