import { createProject, type TestProject } from '../support/e2e';
import { authClient, HEADER_MODE, signupUser, uniqueEmail, type AuthCall } from './auth-support';

/**
 * Issue 12 items 6 and 7 through the gateway: an ended session's access token is refused by data
 * and storage within seconds; other sessions and users keep working; login attempts per account
 * are throttled alike for existing and unknown accounts.
 */
let call: AuthCall;
beforeEach(() => {
  call = authClient();
});

async function projectWithNotes(): Promise<TestProject> {
  const p = await createProject();
  const put = await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
    admin: true,
    body: { rls: { enabled: true, mode: 'private', ownerField: 'userId' } },
  });
  expect([200, 201]).toContain(put.status);
  return p;
}

async function statuses(p: TestProject, token: string): Promise<[number, number]> {
  const insert = await call('POST', '/api/data/notes', { key: p.publishableKey, token, body: { text: 'x' } });
  const f = new FormData();
  f.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'text/plain' }), 'a.txt');
  const upload = await call('POST', '/api/storage/upload', { key: p.publishableKey, token, rawBody: f });
  return [insert.status, upload.status];
}

async function refused(p: TestProject, token: string): Promise<void> {
  const end = Date.now() + 5000;
  for (;;) {
    const s = await statuses(p, token);
    if (s[0] === 401 && s[1] === 401) return;
    if (Date.now() > end) throw new Error(`still accepted after 5 s: ${s.join(',')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function login(p: TestProject, email: string, password = 'password-123') {
  const r = await call('POST', '/api/userAuth/login', {
    key: p.publishableKey,
    headers: HEADER_MODE,
    body: { email, password },
  });
  expect(r.status).toBe(200);
  return { access: r.body.accessToken as string, refresh: r.body.refreshToken as string };
}

describe('access tokens of ended sessions are refused at data and storage', () => {
  it('after logout, within seconds; the user’s other session and other users keep working', async () => {
    const p = await projectWithNotes();
    const u = await signupUser(call, p.publishableKey);
    const second = await login(p, u.email);
    const other = await signupUser(call, p.publishableKey);
    expect(await statuses(p, u.access)).toEqual([201, 201]);
    const out = await call('POST', '/api/userAuth/logout', {
      key: p.publishableKey,
      headers: { ...HEADER_MODE, 'x-refresh-token': u.refresh },
    });
    expect(out.status).toBe(200);
    await refused(p, u.access);
    expect(await statuses(p, second.access)).toEqual([201, 201]);
    expect(await statuses(p, other.access)).toEqual([201, 201]);
  });

  it('after a password change: the other sessions are refused, the caller’s own stays', async () => {
    const p = await projectWithNotes();
    const u = await signupUser(call, p.publishableKey);
    const other = await login(p, u.email);
    const r = await call('PUT', '/api/userAuth/change-password', {
      key: p.publishableKey,
      token: u.access,
      body: { currentPassword: 'password-123', newPassword: 'password-456' },
    });
    expect(r.status).toBe(200);
    await refused(p, other.access);
    expect(await statuses(p, u.access)).toEqual([201, 201]);
  });

  it('after refresh-token reuse: the family’s access tokens are refused', async () => {
    const p = await projectWithNotes();
    const u = await signupUser(call, p.publishableKey);
    const refresh = (t: string) =>
      call('POST', '/api/userAuth/refresh-token', {
        key: p.publishableKey,
        headers: { ...HEADER_MODE, 'x-refresh-token': t },
      });
    const first = await refresh(u.refresh);
    expect(first.status).toBe(200);
    // The successor is used, so presenting the parent again is reuse even inside the grace window.
    const second = await refresh(first.body.refreshToken as string);
    expect(second.status).toBe(200);
    const reuse = await refresh(u.refresh);
    expect(reuse.status).toBe(401);
    await refused(p, second.body.accessToken as string);
  });

  it('after the user is deleted: their tokens are refused, other users keep working', async () => {
    const p = await projectWithNotes();
    const u = await signupUser(call, p.publishableKey);
    const other = await signupUser(call, p.publishableKey);
    const del = await call('DELETE', `/api/admin/projects/${p.id}/users/${u.userId}`, { admin: true });
    expect(del.status).toBe(200);
    await refused(p, u.access);
    expect(await statuses(p, other.access)).toEqual([201, 201]);
    // Without a token the publishable key still uploads (the spec's storage access), as before.
    const f = new FormData();
    f.append('file', new Blob([new Uint8Array([1])], { type: 'text/plain' }), 'b.txt');
    expect((await call('POST', '/api/storage/upload', { key: p.publishableKey, rawBody: f })).status).toBe(
      201,
    );
  });
});

describe('login throttling per account', () => {
  it('gives 401 up to the limit and the same 429 with Retry-After one past it, for an existing and an unknown account', async () => {
    const limit = Number(process.env.LOGIN_ACCOUNT_MAX_ATTEMPTS ?? 10);
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const unknown = uniqueEmail('nobody');
    for (const email of [u.email, unknown]) {
      for (let i = 0; i < limit; i++) {
        const r = await call('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email, password: 'wrong-password' },
        });
        expect(r.status).toBe(401);
      }
    }
    const past = [];
    for (const email of [u.email, unknown])
      past.push(
        await call('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email, password: 'password-123' },
        }),
      );
    for (const r of past) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(past[0]!.body.message).toBe(past[1]!.body.message);
  });
});
