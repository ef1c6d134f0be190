import { eventually, startHarness, refreshCookie, type Harness } from './harness';
import { refreshTokenHash } from '../../src/domain/sessions/refresh-tokens';
import type { ProjectId } from '@baas/common';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const HDR = { 'x-refresh-token-mode': 'header' };

async function signup(p: ProjectId, email = `u${Math.random().toString(36).slice(2)}@x.io`) {
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId: p,
    headers: HDR,
    body: { email, password: 'password-1' },
  });
  expect(r.status).toBe(201);
  return {
    email,
    access: r.body.accessToken as string,
    refresh: r.body.refreshToken as string,
    userId: r.body.user._id as string,
  };
}

const refresh = (p: ProjectId, token: string) =>
  h.call('POST', '/api/userAuth/refresh-token', {
    projectId: p,
    headers: { ...HDR, 'x-refresh-token': token },
  });

describe('refresh rotation', () => {
  it('rotates on every use and stores only hashes with their family', async () => {
    const p = await h.project();
    const u = await signup(p);
    const r1 = await refresh(p, u.refresh);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ success: true, expiresIn: 900 });
    expect(r1.body.refreshToken).not.toBe(u.refresh);
    expect(r1.body.token).toBe(r1.body.accessToken);
    const r2 = await refresh(p, r1.body.refreshToken);
    expect(r2.status).toBe(200);
    const docs = await h.probe.refreshTokens(p);
    expect(docs).toHaveLength(3);
    expect(new Set(docs.map((d) => d.familyId)).size).toBe(1);
    const raw = await h.probe.refreshTokensRaw(p);
    for (const t of [u.refresh, r1.body.refreshToken, r2.body.refreshToken]) {
      expect(raw).not.toContain(t);
      expect(docs.map((d) => d.hash)).toContain(refreshTokenHash(t));
    }
    const first = docs.find((d) => d.hash === refreshTokenHash(u.refresh))!;
    expect(first.expiresAt.getTime() - first.issuedAt.getTime()).toBe(7 * 24 * 3600 * 1000);
  });

  it('a retry within the grace window returns the same successor; after it, reuse revokes the family', async () => {
    const p = await h.project();
    const u = await signup(p);
    const a = await refresh(p, u.refresh);
    const again = await refresh(p, u.refresh);
    expect(again.status).toBe(200);
    expect(again.body.refreshToken).toBe(a.body.refreshToken);
    h.advance(h.config.REFRESH_REUSE_GRACE_SECONDS + 1);
    try {
      const reuse = await refresh(p, u.refresh);
      expect(reuse.status).toBe(401);
      expect(reuse.body.code).toBe('REFRESH_TOKEN_REUSED');
      // The revocation persisted although the request failed: the live successor is dead too.
      expect(await h.probe.familyRevokedReasons(p)).toEqual(['refresh_token_reuse']);
      const child = await refresh(p, a.body.refreshToken);
      expect(child.status).toBe(401);
      // And the family's access tokens no longer pass the auth service's own endpoints.
      expect(
        (await h.call('GET', '/api/userAuth/me', { projectId: p, token: a.body.accessToken })).status,
      ).toBe(401);
    } finally {
      h.advance(-(h.config.REFRESH_REUSE_GRACE_SECONDS + 1));
    }
  });

  it('a grandparent is never accepted, even within the grace window', async () => {
    const p = await h.project();
    const u = await signup(p);
    const a = await refresh(p, u.refresh);
    const b = await refresh(p, a.body.refreshToken);
    expect(b.status).toBe(200);
    const old = await refresh(p, u.refresh);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('REFRESH_TOKEN_REUSED');
    expect((await refresh(p, b.body.refreshToken)).status).toBe(401);
  });

  it('10 concurrent refreshes with one token leave exactly one live successor', async () => {
    const p = await h.project();
    const u = await signup(p);
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(p, u.refresh)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => String(r.body.refreshToken))).size).toBe(1);
    const docs = await h.probe.refreshTokens(p);
    expect(docs).toHaveLength(2);
    expect(docs.filter((d) => !d.usedAt)).toHaveLength(1);
    expect((await refresh(p, results[0]!.body.refreshToken)).status).toBe(200);
  });

  it('refuses expired refresh tokens (7 days) and unknown ones', async () => {
    const p = await h.project();
    const u = await signup(p);
    h.advance(h.config.REFRESH_TOKEN_TTL_SECONDS + 1);
    try {
      const r = await refresh(p, u.refresh);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('INVALID_REFRESH_TOKEN');
    } finally {
      h.advance(-(h.config.REFRESH_TOKEN_TTL_SECONDS + 1));
    }
    expect((await refresh(p, 'rt_' + 'A'.repeat(43))).status).toBe(401);
    const none = await h.call('POST', '/api/userAuth/refresh-token', { projectId: p });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('REFRESH_TOKEN_REQUIRED');
  });

  it('a refresh token of one project is worthless in another', async () => {
    const p1 = await h.project();
    const p2 = await h.project();
    const u = await signup(p1);
    expect((await refresh(p2, u.refresh)).status).toBe(401);
    expect((await refresh(p1, u.refresh)).status).toBe(200);
  });

  it('cookie mode: sets and reads the cookie, no token in the body, Secure behind https', async () => {
    const p = await h.project();
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      headers: { 'x-forwarded-proto': 'https' },
      body: { email: 'c@x.io', password: 'password-1' },
    });
    const cookie = refreshCookie(s.headers)!;
    expect(s.body.refreshToken).toBeUndefined();
    expect(s.headers.getSetCookie()[0]).toMatch(/; Secure/);
    const r = await h.call('POST', '/api/userAuth/refresh-token', {
      projectId: p,
      headers: { cookie: `refreshToken=${cookie}` },
    });
    expect(r.status).toBe(200);
    expect(r.body.refreshToken).toBeUndefined();
    const next = refreshCookie(r.headers)!;
    expect(next).toMatch(/^rt_/);
    expect(next).not.toBe(cookie);
    const out = await h.call('POST', '/api/userAuth/logout', {
      projectId: p,
      headers: { cookie: `refreshToken=${next}` },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^refreshToken=; Max-Age=0/);
    expect(
      (
        await h.call('POST', '/api/userAuth/refresh-token', {
          projectId: p,
          headers: { cookie: `refreshToken=${next}` },
        })
      ).status,
    ).toBe(401);
  });
});

describe('ending sessions', () => {
  it('logout with x-refresh-token revokes that family only', async () => {
    const p = await h.project();
    const u = await signup(p);
    const other = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      headers: HDR,
      body: { email: u.email, password: 'password-1' },
    });
    const out = await h.call('POST', '/api/userAuth/logout', {
      projectId: p,
      headers: { 'x-refresh-token': u.refresh },
    });
    expect(out.status).toBe(200);
    expect((await refresh(p, u.refresh)).status).toBe(401);
    expect((await h.call('GET', '/api/userAuth/me', { projectId: p, token: u.access })).status).toBe(401);
    expect((await refresh(p, other.body.refreshToken)).status).toBe(200);
  });

  it('change-password revokes the other sessions and keeps the caller’s', async () => {
    const p = await h.project();
    const u = await signup(p);
    const other = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      headers: HDR,
      body: { email: u.email, password: 'password-1' },
    });
    const bad = await h.call('PUT', '/api/userAuth/change-password', {
      projectId: p,
      token: u.access,
      body: { currentPassword: 'wrong-password', newPassword: 'password-2' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_CURRENT_PASSWORD');
    // a new password often found in breaches is refused before anything changes
    const common = await h.call('PUT', '/api/userAuth/change-password', {
      projectId: p,
      token: u.access,
      body: { currentPassword: 'password-1', newPassword: 'Iloveyou' },
    });
    expect(common.status).toBe(400);
    expect(common.body.details).toEqual([
      { path: 'newPassword', message: expect.stringContaining('breaches') },
    ]);
    const ok = await h.call('PUT', '/api/userAuth/change-password', {
      projectId: p,
      token: u.access,
      body: { currentPassword: 'password-1', newPassword: 'password-2' },
    });
    expect(ok.status).toBe(200);
    expect((await refresh(p, other.body.refreshToken)).status).toBe(401);
    expect((await refresh(p, u.refresh)).status).toBe(200);
    expect((await h.call('GET', '/api/userAuth/me', { projectId: p, token: u.access })).status).toBe(200);
    const login = (pw: string) =>
      h.call('POST', '/api/userAuth/login', { projectId: p, body: { email: u.email, password: pw } });
    expect((await login('password-1')).status).toBe(401);
    expect((await login('password-2')).status).toBe(200);
  });

  it('a deleted user’s refresh tokens stop working and user.deleted is published', async () => {
    const p = await h.project();
    const u = await signup(p);
    const { deleteUser } = await import('../../src/domain/users/delete-user');
    // Deleting right after signup races the relay cleaning the signup's events (KeyedMutex).
    await deleteUser(h.wiring.deps, p, u.userId, {
      actor: { type: 'platform-admin' },
      clientIp: null,
      requestId: 'req-1',
    });
    await h.relay.flush();
    // Publication is at least once (JetStream drops repeats by event id): count distinct ids.
    const deleted = h.published.filter((e) => e.type === 'user.deleted' && e.projectId === p);
    expect(new Set(deleted.map((e) => e.id)).size).toBe(1);
    expect(deleted[0]?.data).toEqual({ userId: u.userId });
    await eventually(async () => expect(await h.probe.count('users', p)).toBe(0));
    expect((await refresh(p, u.refresh)).status).toBe(401);
    expect((await h.call('GET', '/api/userAuth/me', { projectId: p, token: u.access })).status).toBe(401);
  });
});

describe('janitor purge', () => {
  it('deletes expired tokens and codes in bounded batches and reports more', async () => {
    const p = await h.project();
    for (let i = 0; i < 3; i++) await signup(p);
    const { purgeExpired } = await import('../../src/domain/maintenance/purge-expired');
    const later = new Date(Date.now() + (h.config.REFRESH_FAMILY_MAX_SECONDS + 10) * 1000);
    const deps = {
      users: h.wiring.users,
      sessions: h.wiring.sessions,
      claims: h.wiring.claims,
      clock: () => later,
    };
    const first = await purgeExpired(deps, { olderThan: later.toISOString(), batchSize: 2 });
    expect(first).toEqual({ ok: true, processed: 2, more: true });
    // Other tests' data in this database expires too: loop as the janitor does until no more.
    for (let i = 0; i < 100; i++) {
      const r = await purgeExpired(deps, { olderThan: later.toISOString(), batchSize: 50 });
      if (!r.more) break;
    }
    expect(await h.probe.count('refreshTokens', p)).toBe(0);
    expect(await h.probe.count('families', p)).toBe(0);
    expect(await h.probe.count('codes', p)).toBe(0);
    expect(await h.probe.count('users', p)).toBe(3);
  });

  it('never deletes what is still live (cutoff clamped to now)', async () => {
    const p = await h.project();
    const u = await signup(p);
    const { purgeExpired } = await import('../../src/domain/maintenance/purge-expired');
    const future = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString();
    await purgeExpired(
      {
        users: h.wiring.users,
        sessions: h.wiring.sessions,
        claims: h.wiring.claims,
        clock: () => new Date(),
      },
      { olderThan: future, batchSize: 1000 },
    );
    expect((await refresh(p, u.refresh)).status).toBe(200);
  });
});
