import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { accessTokenAudience, SIGNING_KEY_PUBLISH_AHEAD_MS } from '@baas/common';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('signing keys and JWKS', () => {
  it('creates an Ed25519 key at first start and serves it without an assertion', async () => {
    const r = await h.call('GET', '/.well-known/jwks.json', { noAssertion: true });
    expect(r.status).toBe(200);
    expect(r.body.keys).toHaveLength(1);
    const k = r.body.keys[0];
    expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(typeof k.kid).toBe('string');
    expect(k.d).toBeUndefined();
    const stored = await h.probe.signingKeyRaw(k.kid);
    expect(stored).not.toBeNull();
    expect(stored).not.toContain('"d"');
  });

  it('rotation keeps old tokens valid and signs new ones with the new key', async () => {
    const p = await h.project();
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'rot@x.io', password: 'password-123' },
    });
    const oldKid = decodeProtectedHeader(s.body.accessToken).kid;
    const { kid: newKid, signsFrom } = await h.wiring.deps.keys.rotate();
    expect(newKid).not.toBe(oldKid);
    expect(signsFrom.getTime() - h.wiring.deps.clock().getTime()).toBeGreaterThan(0);
    const jwks = await h.call('GET', '/.well-known/jwks.json', { noAssertion: true });
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid).sort()).toEqual([oldKid, newKid].sort());
    expect(
      (await h.call('GET', '/api/userAuth/me', { projectId: p, token: s.body.accessToken })).status,
    ).toBe(200);
    const login = () =>
      h.call('POST', '/api/userAuth/login', {
        projectId: p,
        body: { email: 'rot@x.io', password: 'password-123' },
      });
    // Published ahead: the old key signs until every verifier can have fetched the new one.
    expect(decodeProtectedHeader((await login()).body.accessToken).kid).toBe(oldKid);
    h.advance(SIGNING_KEY_PUBLISH_AHEAD_MS / 1000);
    expect(decodeProtectedHeader((await login()).body.accessToken).kid).toBe(newKid);
    h.advance(-SIGNING_KEY_PUBLISH_AHEAD_MS / 1000);
    // Retiring after the token lifetime stops publishing the old key.
    h.advance(h.config.ACCESS_TOKEN_TTL_SECONDS + 600);
    expect(await h.wiring.deps.keys.retireStale(h.config.ACCESS_TOKEN_TTL_SECONDS)).toBe(1);
    const after = await h.call('GET', '/.well-known/jwks.json', { noAssertion: true });
    expect(after.body.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid]);
    h.advance(-(h.config.ACCESS_TOKEN_TTL_SECONDS + 600));
  });

  it('refuses the user API for a deleted project at once, whatever the gateway still caches', async () => {
    const p = await h.project();
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'gone@x.io', password: 'password-123' },
    });
    expect(s.status).toBe(201);
    await h.wiring.projects.markDeleted(p, []);
    const r = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'gone@x.io', password: 'password-123' },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('INVALID_API_KEY');
  });

  it("publishes a project write's events right after it, without waiting for the periodic pass", async () => {
    // The harness's relay has no schedule (60 s, not started): only the write itself can have
    // handed the events on (PostgreSQL: a kick after the commit; MongoDB: relayOne).
    const created = await h.call('POST', '/api/admin/projects', { admin: true, body: { name: 'prompt' } });
    expect(created.status).toBe(201);
    const p = String(created.body.id);
    const path = `/api/admin/projects/${p}`;
    expect((await h.call('PATCH', path, { admin: true, body: { name: 'prompter' } })).status).toBe(200);
    const rotate = { admin: true, body: { type: 'secret' } };
    expect((await h.call('POST', `${path}/keys/rotate`, rotate)).status).toBe(200);
    expect((await h.call('DELETE', path, { admin: true })).status).toBe(200);
    const types = () =>
      h.published
        .filter((e) => e.projectId === p && e.type.startsWith('project.'))
        .map((e): string => e.type);
    const expected = ['project.created', 'project.updated', 'project.key_rotated', 'project.deleted'];
    for (let i = 0; i < 40 && !expected.every((t) => types().includes(t)); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect([...new Set(types())]).toEqual(expected);
  });

  it('refuses the user API without a gateway assertion', async () => {
    const r = await h.call('POST', '/api/userAuth/login', {
      noAssertion: true,
      body: { email: 'a@b.co', password: 'x' },
    });
    expect(r.status).toBe(401);
  });
});

describe('signup, login, me', () => {
  it('signup returns 201 with an access token following the platform conventions', async () => {
    const p = await h.project();
    const r = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'Alice@Example.com', password: 'correct horse', username: 'alice' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      success: true,
      expiresIn: 900,
      user: { email: 'Alice@Example.com', emailVerified: false, username: 'alice' },
    });
    expect(r.body.token).toBe(r.body.accessToken);
    expect(r.body.user.password).toBeUndefined();
    expect(r.body.user._id).toMatch(/^[a-f0-9]{24}$/);
    expect(r.body.refreshToken).toBeUndefined();
    const jwks = createLocalJWKSet(
      (await h.call('GET', '/.well-known/jwks.json', { noAssertion: true })).body,
    );
    const { payload, protectedHeader } = await jwtVerify(r.body.accessToken, jwks, {
      algorithms: ['EdDSA'],
      issuer: 'baas-auth',
      audience: accessTokenAudience(p),
      typ: 'at+jwt',
    });
    expect(protectedHeader.kid).toBeDefined();
    expect(payload.sub).toBe(r.body.user._id);
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(typeof payload.sid).toBe('string');
    expect(typeof payload.jti).toBe('string');
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('refreshToken='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Path=\/api\/userAuth/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const stored = (await h.probe.firstUser(p))!;
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(stored.raw).not.toContain('correct horse');
  });

  it('login and me work; unknown email and wrong password get the identical 401', async () => {
    const p = await h.project();
    await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'bob@x.io', password: 'password-1' },
    });
    const ok = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'BOB@x.io', password: 'password-1' },
    });
    expect(ok.status).toBe(200);
    const me = await h.call('GET', '/api/userAuth/me', { projectId: p, token: ok.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('bob@x.io');
    const wrong = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'bob@x.io', password: 'password-2' },
    });
    const unknown = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'nobody@x.io', password: 'password-2' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
    expect(strip(wrong.body)).toEqual(strip(unknown.body));
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
  });

  it('is isolated per project: the same email signs up in two projects, tokens do not cross', async () => {
    const p1 = await h.project();
    const p2 = await h.project();
    const a = await h.call('POST', '/api/userAuth/signup', {
      projectId: p1,
      body: { email: 'same@x.io', password: 'password-1' },
    });
    const b = await h.call('POST', '/api/userAuth/signup', {
      projectId: p2,
      body: { email: 'same@x.io', password: 'password-1' },
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(
      (await h.call('GET', '/api/userAuth/me', { projectId: p2, token: a.body.accessToken })).status,
    ).toBe(401);
    const dup = await h.call('POST', '/api/userAuth/signup', {
      projectId: p1,
      body: { email: 'SAME@x.io', password: 'password-1' },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('DUPLICATE_VALUE');
  });
});
