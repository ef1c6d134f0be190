import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, SignJWT, UnsecuredJWT } from 'jose';
import { client, createProject } from '../support/e2e';
import { authClient, cookieFrom, HEADER_MODE, signupUser, expectPasswordChanged } from './auth-support';

/** Issue 3: tokens and refresh sessions through the gateway. */
const call = authClient();
const refreshHeader = (key: string, token: string) =>
  call('POST', '/api/userAuth/refresh-token', { key, headers: { ...HEADER_MODE, 'x-refresh-token': token } });
interface Claims {
  [k: string]: unknown;
  sid: string;
  exp: number;
  iat: number;
}
const claimsOf = (jwt: string): Claims =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Claims;

describe('JWKS', () => {
  it('serves the Ed25519 public keys without an API key, never a private part', async () => {
    const r = await client()('GET', '/.well-known/jwks.json');
    expect(r.status).toBe(200);
    expect(r.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of r.body.keys) {
      expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', kid: expect.any(String) });
      expect(k.d).toBeUndefined();
    }
  });
});

describe('access-token negative matrix (GET /me answers 401 to each)', () => {
  it('refuses alg none, a foreign key, an embedded jwk, tampering, stripping, a refresh token, another project', async () => {
    const p = await createProject();
    const q = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const c = claimsOf(u.access);
    const header = JSON.parse(Buffer.from(u.access.split('.')[0] ?? '', 'base64url').toString());
    const attacker = generateKeyPairSync('ed25519');
    const signed = (h: Record<string, unknown>) =>
      new SignJWT({ ...c })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: header.kid, ...h })
        .sign(attacker.privateKey);
    const [h64, , sig] = u.access.split('.');
    const tampered = `${h64}.${Buffer.from(JSON.stringify({ ...c, sub: 'f'.repeat(24) })).toString('base64url')}.${sig}`;
    const cases: Array<[string, string, string]> = [
      ['alg none', new UnsecuredJWT({ ...c }).encode(), p.publishableKey],
      ['foreign key with the real kid', await signed({}), p.publishableKey],
      [
        'attacker key embedded as jwk',
        await signed({ jwk: await exportJWK(attacker.publicKey), kid: undefined }),
        p.publishableKey,
      ],
      ['tampered payload', tampered, p.publishableKey],
      ['signature stripped', `${h64}.${u.access.split('.')[1]}.`, p.publishableKey],
      ['refresh token as access token', u.refresh, p.publishableKey],
      ['token of another project (audience)', u.access, q.publishableKey],
      ['garbage', 'not-a-token', p.publishableKey],
    ];
    for (const [name, token, key] of cases) {
      const r = await call('GET', '/api/userAuth/me', { key, token });
      expect([name, r.status]).toEqual([name, 401]);
    }
    expect((await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access })).status).toBe(
      200,
    );
  });

  it('issues tokens with the contract claims: EdDSA, at+jwt, kid, iss, project audience, sub, sid, jti, 900 s', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const header = JSON.parse(Buffer.from(u.access.split('.')[0] ?? '', 'base64url').toString());
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
    const c = claimsOf(u.access);
    expect(c).toMatchObject({
      iss: 'baas-auth',
      aud: `project:${p.id}`,
      sub: u.userId,
      sid: expect.any(String),
      jti: expect.any(String),
    });
    expect(c.exp - c.iat).toBe(900);
  });
});

describe('refresh-token: header mode', () => {
  it('rotates on every use; the family (sid) stays; the new access token works', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const r1 = await refreshHeader(p.publishableKey, u.refresh);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      success: true,
      expiresIn: 900,
      refreshToken: expect.stringMatching(/^rt_/),
    });
    expect(r1.body.token).toBe(r1.body.accessToken);
    expect(r1.body.refreshToken).not.toBe(u.refresh);
    expect(r1.headers.getSetCookie()).toEqual([]);
    expect(claimsOf(r1.body.accessToken).sid).toBe(claimsOf(u.access).sid);
    const r2 = await refreshHeader(p.publishableKey, r1.body.refreshToken);
    expect(r2.status).toBe(200);
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: r2.body.accessToken })).status,
    ).toBe(200);
  });

  it('a retry inside the grace window returns the same child; replay of a grandparent revokes the whole family', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const a = await refreshHeader(p.publishableKey, u.refresh);
    const retry = await refreshHeader(p.publishableKey, u.refresh);
    expect(retry.status).toBe(200);
    expect(retry.body.refreshToken).toBe(a.body.refreshToken);
    const b = await refreshHeader(p.publishableKey, a.body.refreshToken);
    expect(b.status).toBe(200);
    const replay = await refreshHeader(p.publishableKey, u.refresh);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('REFRESH_TOKEN_REUSED');
    // The revocation stuck although that request failed: the live token of the family is dead.
    expect((await refreshHeader(p.publishableKey, b.body.refreshToken)).status).toBe(401);
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: b.body.accessToken })).status,
    ).toBe(401);
  });

  it('10 parallel refreshes with one token: all get the same single successor', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => refreshHeader(p.publishableKey, u.refresh)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const children = new Set(results.map((r) => String(r.body.refreshToken)));
    expect(children.size).toBe(1);
    expect((await refreshHeader(p.publishableKey, [...children][0] as string)).status).toBe(200);
  });

  it('is 401 without a token, with an unknown one, and with a token of another project', async () => {
    const p = await createProject();
    const q = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const none = await call('POST', '/api/userAuth/refresh-token', { key: p.publishableKey });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('REFRESH_TOKEN_REQUIRED');
    expect((await refreshHeader(p.publishableKey, 'rt_' + 'x'.repeat(43))).status).toBe(401);
    expect((await refreshHeader(q.publishableKey, u.refresh)).status).toBe(401);
    expect((await refreshHeader(p.publishableKey, u.refresh)).status).toBe(200);
  });
});

describe('refresh-token: cookie mode', () => {
  it('login sets the cookie, refresh reads and rotates it, logout clears it and revokes the family', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const login = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: u.email, password: u.password },
    });
    expect(login.body.refreshToken).toBeUndefined();
    const c1 = cookieFrom(login.headers) as string;
    expect(c1).toMatch(/^rt_/);
    const r = await call('POST', '/api/userAuth/refresh-token', {
      key: p.publishableKey,
      headers: { cookie: `refreshToken=${c1}` },
    });
    expect(r.status).toBe(200);
    expect(r.body.refreshToken).toBeUndefined();
    const c2 = cookieFrom(r.headers) as string;
    expect(c2).toMatch(/^rt_/);
    expect(c2).not.toBe(c1);
    const out = await call('POST', '/api/userAuth/logout', {
      key: p.publishableKey,
      headers: { cookie: `refreshToken=${c2}` },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(
      /^refreshToken=; Max-Age=0; Path=\/api\/userAuth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax/,
    );
    expect(
      (
        await call('POST', '/api/userAuth/refresh-token', {
          key: p.publishableKey,
          headers: { cookie: `refreshToken=${c2}` },
        })
      ).status,
    ).toBe(401);
    // The header-mode session of the same user is another family and lives on.
    expect((await refreshHeader(p.publishableKey, u.refresh)).status).toBe(200);
  });

  it('marks the cookie Secure when the client came over https', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const login = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      headers: { 'x-forwarded-proto': 'https' },
      body: { email: u.email, password: u.password },
    });
    expect(login.headers.getSetCookie()[0]).toMatch(/; Secure/);
  });
});

describe('logout and password change', () => {
  it('logout with x-refresh-token revokes that family; without a token it is 401', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const out = await call('POST', '/api/userAuth/logout', {
      key: p.publishableKey,
      headers: { 'x-refresh-token': u.refresh },
    });
    expect(out.status).toBe(200);
    expect(out.body.success).toBe(true);
    expect((await refreshHeader(p.publishableKey, u.refresh)).status).toBe(401);
    expect((await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access })).status).toBe(
      401,
    );
    expect((await call('POST', '/api/userAuth/logout', { key: p.publishableKey })).status).toBe(401);
  });

  it('change-password: wrong current password 400, weak new one 400; success ends the other sessions only', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const other = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      headers: HEADER_MODE,
      body: { email: u.email, password: u.password },
    });
    const put = (body: unknown, token = u.access) =>
      call('PUT', '/api/userAuth/change-password', { key: p.publishableKey, token, body });
    expect((await put({ currentPassword: 'nope-nope', newPassword: 'new-password-1' })).status).toBe(400);
    expect((await put({ currentPassword: u.password, newPassword: 'short' })).status).toBe(400);
    expect((await put({ currentPassword: u.password, newPassword: 'new-password-1' }, 'bad')).status).toBe(
      401,
    );
    const ok = await put({ currentPassword: u.password, newPassword: 'new-password-1' });
    expect(ok.status).toBe(200);
    expect((await refreshHeader(p.publishableKey, other.body.refreshToken)).status).toBe(401);
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: other.body.accessToken }))
        .status,
    ).toBe(401);
    expect((await refreshHeader(p.publishableKey, u.refresh)).status).toBe(200);
    await expectPasswordChanged(call, p.publishableKey, u.email, u.password, 'new-password-1');
  });
});

describe('project deletion', () => {
  it('the users of a deleted project can no longer refresh or log in', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    expect((await client()('DELETE', `/api/admin/projects/${p.id}`, { admin: true })).status).toBe(200);
    // The key stops at once; the users and sessions are removed by the project.deleted consumer.
    expect((await refreshHeader(p.publishableKey, u.refresh)).status).toBe(401);
  });
});
