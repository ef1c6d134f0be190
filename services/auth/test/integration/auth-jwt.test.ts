import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { accessTokenAudience, type ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';

/** RFC 8725 negative matrix with the service's own signing key, so only the named flaw differs. */
let h: Harness;
let p: ProjectId;
let good: { access: string; userId: string; sid: string };
beforeAll(async () => {
  h = await startHarness();
  p = await h.project();
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId: p,
    body: { email: 'jwt@x.io', password: 'password-1' },
  });
  const payload = JSON.parse(Buffer.from(r.body.accessToken.split('.')[1], 'base64url').toString());
  good = { access: r.body.accessToken, userId: r.body.user._id, sid: payload.sid };
});
afterAll(async () => {
  await h.close();
});

const me = (token: string) => h.call('GET', '/api/userAuth/me', { projectId: p, token });

function forge(
  opts: {
    header?: Record<string, unknown>;
    claims?: Record<string, unknown>;
    iat?: number;
    exp?: number;
    key?: 'real' | 'other';
  } = {},
) {
  const { kid, key } = h.wiring.deps.keys.signingKey();
  const now = Math.floor(Date.now() / 1000);
  const other = generateKeyPairSync('ed25519').privateKey;
  return new SignJWT({ sid: good.sid, ...opts.claims })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid, ...opts.header })
    .setIssuer((opts.claims?.iss as string) ?? 'baas-auth')
    .setAudience((opts.claims?.aud as string) ?? accessTokenAudience(p))
    .setSubject(good.userId)
    .setJti('j' + Math.random())
    .setIssuedAt(opts.iat ?? now)
    .setExpirationTime(opts.exp ?? now + 900)
    .sign(opts.key === 'other' ? other : key);
}

describe('access-token validation', () => {
  it('accepts a well-formed token made the same way (control)', async () => {
    expect((await me(await forge())).status).toBe(200);
  });

  it.each([
    [
      'expired beyond the 30 s tolerance',
      () => forge({ iat: Math.floor(Date.now() / 1000) - 1000, exp: Math.floor(Date.now() / 1000) - 31 }),
    ],
    ['wrong issuer', () => forge({ claims: { iss: 'someone-else' } })],
    [
      'wrong audience (another project)',
      () => forge({ claims: { aud: accessTokenAudience('0123456789abcdef01234567') } }),
    ],
    ['typ JWT instead of at+jwt', () => forge({ header: { typ: 'JWT' } })],
    ['unknown kid', () => forge({ header: { kid: 'not-a-key' } })],
    ['signed by another key', () => forge({ key: 'other' })],
    ['lifetime longer than policy', () => forge({ exp: Math.floor(Date.now() / 1000) + 24 * 3600 })],
    [
      'alg none',
      async () =>
        new UnsecuredJWT({ sub: good.userId, sid: good.sid, iss: 'baas-auth', aud: accessTokenAudience(p) })
          .setIssuedAt()
          .setExpirationTime('10m')
          .encode(),
    ],
    [
      'tampered payload',
      async () => {
        const [hd, , sig] = good.access.split('.');
        const body = Buffer.from(
          JSON.stringify({
            sub: '0'.repeat(24),
            sid: good.sid,
            iss: 'baas-auth',
            aud: accessTokenAudience(p),
            iat: 1,
            exp: 9999999999,
            jti: 'x',
          }),
        ).toString('base64url');
        return `${hd}.${body}.${sig}`;
      },
    ],
    ['signature stripped', async () => good.access.split('.').slice(0, 2).join('.') + '.'],
    ['a session id that does not exist', () => forge({ claims: { sid: 'f'.repeat(32) } })],
  ])('rejects %s with 401', async (_name, make) => {
    const r = await me(await make());
    expect(r.status).toBe(401);
    expect(r.body.success).toBe(false);
  });

  it('rejects a refresh token presented as an access token', async () => {
    const r = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      headers: { 'x-refresh-token-mode': 'header' },
      body: { email: 'jwt@x.io', password: 'password-1' },
    });
    expect((await me(r.body.refreshToken)).status).toBe(401);
  });
});
