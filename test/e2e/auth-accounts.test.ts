import { client, createProject } from '../support/e2e';
import { authClient, HEADER_MODE, signupUser, uniqueEmail } from './auth-support';

/** Issue 3: end-user accounts through the gateway (signup, login, me, public profile, profile edits, users schema). */
const call = authClient();
const admin = client();

describe('signup', () => {
  it('creates a user: 201 with accessToken, its token alias, expiresIn, the user and a refresh cookie', async () => {
    const p = await createProject();
    const email = uniqueEmail();
    const r = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email, password: 'password-123', username: 'neo' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      success: true,
      expiresIn: 900,
      user: { email, emailVerified: false, username: 'neo' },
    });
    expect(r.body.accessToken.split('.')).toHaveLength(3);
    expect(r.body.token).toBe(r.body.accessToken);
    expect(r.body.user._id).toMatch(/^[a-f0-9]{24}$/);
    expect(r.body.user.password).toBeUndefined();
    expect(JSON.stringify(r.body)).not.toContain('password-123');
    expect(r.body.refreshToken).toBeUndefined();
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('refreshToken='));
    expect(cookie).toMatch(
      /^refreshToken=rt_[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/api\/userAuth; HttpOnly; SameSite=Lax$/,
    );
  });

  it('returns the refresh token in the body only in header mode', async () => {
    const p = await createProject();
    const r = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      headers: HEADER_MODE,
      body: { email: uniqueEmail(), password: 'password-123' },
    });
    expect(r.status).toBe(201);
    expect(r.body.refreshToken).toMatch(/^rt_/);
    expect(r.headers.getSetCookie()).toEqual([]);
  });

  it('validates email, password length (8 and 128 at the limit, 7 and 129 past it) and refuses common passwords', async () => {
    const p = await createProject();
    const at = async (password: string) =>
      (
        await call('POST', '/api/userAuth/signup', {
          key: p.publishableKey,
          headers: HEADER_MODE,
          body: { email: uniqueEmail(), password },
        })
      ).status;
    expect(await at('a'.repeat(8))).toBe(201);
    expect(await at('a'.repeat(128))).toBe(201);
    expect(await at('a'.repeat(7))).toBe(400);
    expect(await at('a'.repeat(129))).toBe(400);
    // one of the passwords most often found in breaches, in any case (ASVS 6.2.12)
    for (const common of ['12345678', 'Password', 'iloveyou']) {
      const r = await call('POST', '/api/userAuth/signup', {
        key: p.publishableKey,
        body: { email: uniqueEmail(), password: common },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ path: 'password', message: expect.stringContaining('most often found in breaches') }],
      });
    }
    const bad = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: 'not-an-email', password: 'password-123' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', details: expect.any(Array) });
    expect(
      (
        await call('POST', '/api/userAuth/signup', {
          key: p.publishableKey,
          body: { password: 'password-123' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/signup', {
          key: p.publishableKey,
          rawBody: '{"email":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
  });

  it('refuses a duplicate email in the project, case-insensitively (400 DUPLICATE_VALUE); another project may reuse it', async () => {
    const p = await createProject();
    const q = await createProject();
    const email = uniqueEmail('Dup');
    await signupUser(call, p.publishableKey, {}, email);
    const dup = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: email.toUpperCase(), password: 'password-123' },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('DUPLICATE_VALUE');
    expect(
      (
        await call('POST', '/api/userAuth/signup', {
          key: q.publishableKey,
          body: { email, password: 'password-123' },
        })
      ).status,
    ).toBe(201);
  });

  it('is 403 when public signups are off, while existing users still log in', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    expect(
      (
        await admin('PATCH', `/api/admin/projects/${p.id}`, {
          admin: true,
          body: { settings: { publicSignups: false } },
        })
      ).status,
    ).toBe(200);
    const r = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123' },
    });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('SIGNUPS_DISABLED');
    const l = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: u.email, password: u.password },
    });
    expect(l.status).toBe(200);
  });

  it('refuses server-owned fields (mass assignment) and stores nothing', async () => {
    const p = await createProject();
    for (const extra of [
      { emailVerified: true },
      { _id: 'a'.repeat(24) },
      { roles: ['admin'] },
      { role: 'admin' },
      { createdAt: '2000-01-01' },
      { passwordHash: 'x' },
    ]) {
      const email = uniqueEmail();
      const r = await call('POST', '/api/userAuth/signup', {
        key: p.publishableKey,
        body: { email, password: 'password-123', ...extra },
      });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('FIELD_NOT_EDITABLE');
      const l = await call('POST', '/api/userAuth/login', {
        key: p.publishableKey,
        body: { email, password: 'password-123' },
      });
      expect(l.status).toBe(401);
    }
    const sneaky = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123', prefs: { $where: '1' } },
    });
    expect(sneaky.status).toBe(400);
  });
});

describe('users schema', () => {
  it('validates extra signup fields against the project users schema (type and required), unknown keys stored as given', async () => {
    const p = await createProject();
    const put = await admin('PUT', `/api/admin/projects/${p.id}/users-schema`, {
      admin: true,
      body: {
        fields: [
          { key: 'username', type: 'String', required: true, unique: true },
          { key: 'age', type: 'Number' },
          { key: 'preferences', type: 'Object', fields: [{ key: 'theme', type: 'String' }] },
        ],
      },
    });
    expect(put.status).toBe(200);
    const missing = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'username' })]),
    );
    const wrongType = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123', username: 'x', age: 'old' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details).toEqual([expect.objectContaining({ path: 'age' })]);
    const nested = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123', username: 'y', preferences: { theme: 3 } },
    });
    expect(nested.body.details).toEqual([expect.objectContaining({ path: 'preferences.theme' })]);
    const ok = await signupUser(call, p.publishableKey, { username: 'trinity', age: 30, avatar: 'a.png' });
    const me = await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: ok.access });
    expect(me.body.user).toMatchObject({ username: 'trinity', age: 30, avatar: 'a.png' });
    const taken = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'password-123', username: 'trinity' },
    });
    expect(taken.status).toBe(400);
    expect(taken.body.code).toBe('DUPLICATE_VALUE');
  });

  it('refuses a malformed schema, reserved keys, a missing admin token, and another project’s id', async () => {
    const p = await createProject();
    const bad = await admin('PUT', `/api/admin/projects/${p.id}/users-schema`, {
      admin: true,
      body: { fields: [{ key: 'x', type: 'Blob' }] },
    });
    expect(bad.status).toBe(400);
    const reserved = await admin('PUT', `/api/admin/projects/${p.id}/users-schema`, {
      admin: true,
      body: { fields: [{ key: 'password', type: 'String' }] },
    });
    expect(reserved.status).toBe(400);
    expect(
      (await admin('PUT', `/api/admin/projects/${p.id}/users-schema`, { body: { fields: [] } })).status,
    ).toBe(401);
    expect(
      (
        await admin('PUT', `/api/admin/projects/${'0'.repeat(24)}/users-schema`, {
          admin: true,
          body: { fields: [] },
        })
      ).status,
    ).toBe(404);
  });
});

describe('login and me', () => {
  it('logs in with the email in any case; unknown email and wrong password get the same 401 body', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const ok = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: u.email.toUpperCase(), password: u.password },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, expiresIn: 900, user: { _id: u.userId, email: u.email } });
    expect(ok.body.token).toBe(ok.body.accessToken);
    const wrong = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: u.email, password: 'wrong-password' },
    });
    const unknown = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: uniqueEmail(), password: 'wrong-password' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const w = { ...wrong.body, requestId: undefined };
    const n = { ...unknown.body, requestId: undefined };
    expect(w).toEqual(n);
    expect(w).toEqual({
      success: false,
      error: 'Invalid email or password',
      message: 'Invalid email or password',
      code: 'INVALID_CREDENTIALS',
    });
    expect(wrong.headers.getSetCookie()).toEqual(unknown.headers.getSetCookie());
    expect(
      (
        await call('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email: u.email, password: 'x'.repeat(129) },
        })
      ).status,
    ).toBe(400);
  });

  it('me needs a Bearer token and answers with the current user; a token of one project is refused in another', async () => {
    const p = await createProject();
    const q = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const me = await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      success: true,
      user: { _id: u.userId, email: u.email, emailVerified: false },
      data: { _id: u.userId },
    });
    expect(me.body.user.password).toBeUndefined();
    expect((await call('GET', '/api/userAuth/me', { key: p.publishableKey })).status).toBe(401);
    expect((await call('GET', '/api/userAuth/me', { key: q.publishableKey, token: u.access })).status).toBe(
      401,
    );
    expect((await call('GET', '/api/userAuth/me', { token: u.access })).status).toBe(401);
  });
});

describe('public profile', () => {
  it('shows a public-safe view by username (no email, no password) and 404 for unknown names or another project', async () => {
    const p = await createProject();
    const q = await createProject();
    await signupUser(call, p.publishableKey, { username: 'morpheus', avatar: 'm.png' });
    const r = await call('GET', '/api/userAuth/public/morpheus', { key: p.publishableKey });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ username: 'morpheus', avatar: 'm.png' });
    expect(r.body.user.email).toBeUndefined();
    expect(r.body.user.password).toBeUndefined();
    expect(r.body.user.emailVerified).toBeUndefined();
    expect(JSON.stringify(r.body)).not.toContain('@example.test');
    expect((await call('GET', '/api/userAuth/public/nobody-here', { key: p.publishableKey })).status).toBe(
      404,
    );
    expect((await call('GET', '/api/userAuth/public/morpheus', { key: q.publishableKey })).status).toBe(404);
  });
});

describe('update-profile', () => {
  it('changes profile fields only and refuses server-owned ones (400, stored state unchanged)', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey, { username: 'smith' });
    const ok = await call('PUT', '/api/userAuth/update-profile', {
      key: p.publishableKey,
      token: u.access,
      body: { username: 'agent-smith', preferences: { theme: 'dark' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({
      username: 'agent-smith',
      preferences: { theme: 'dark' },
      email: u.email,
    });
    for (const attack of [
      { email: 'evil@example.test' },
      { password: 'new-password-1' },
      { emailVerified: true },
      { _id: 'b'.repeat(24) },
      { roles: ['admin'] },
      { username: 'x', role: 'admin' },
    ]) {
      const r = await call('PUT', '/api/userAuth/update-profile', {
        key: p.publishableKey,
        token: u.access,
        body: attack,
      });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('FIELD_NOT_EDITABLE');
    }
    const me = await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access });
    expect(me.body.user).toMatchObject({
      _id: u.userId,
      email: u.email,
      emailVerified: false,
      username: 'agent-smith',
    });
    expect(me.body.user.roles).toBeUndefined();
    expect(
      (
        await call('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email: u.email, password: u.password },
        })
      ).status,
    ).toBe(200);
  });

  it('validates against the users schema, needs a token, and refuses another project’s token', async () => {
    const p = await createProject();
    const q = await createProject();
    await admin('PUT', `/api/admin/projects/${p.id}/users-schema`, {
      admin: true,
      body: { fields: [{ key: 'age', type: 'Number' }] },
    });
    const u = await signupUser(call, p.publishableKey);
    const bad = await call('PUT', '/api/userAuth/update-profile', {
      key: p.publishableKey,
      token: u.access,
      body: { age: 'ten' },
    });
    expect(bad.status).toBe(400);
    expect(
      (await call('PUT', '/api/userAuth/update-profile', { key: p.publishableKey, body: { age: 3 } })).status,
    ).toBe(401);
    expect(
      (
        await call('PUT', '/api/userAuth/update-profile', {
          key: q.publishableKey,
          token: u.access,
          body: { age: 3 },
        })
      ).status,
    ).toBe(401);
  });
});

describe('admin user deletion', () => {
  it('deletes a user: their tokens stop working and the email can sign up again', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const del = await admin('DELETE', `/api/admin/projects/${p.id}/users/${u.userId}`, { admin: true });
    expect(del.status).toBe(200);
    expect((await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access })).status).toBe(
      401,
    );
    expect(
      (
        await call('POST', '/api/userAuth/refresh-token', {
          key: p.publishableKey,
          headers: { ...HEADER_MODE, 'x-refresh-token': u.refresh },
        })
      ).status,
    ).toBe(401);
    expect(
      (await admin('DELETE', `/api/admin/projects/${p.id}/users/${u.userId}`, { admin: true })).status,
    ).toBe(404);
    expect((await admin('DELETE', `/api/admin/projects/${p.id}/users/${u.userId}`)).status).toBe(401);
    expect(
      (
        await call('POST', '/api/userAuth/signup', {
          key: p.publishableKey,
          body: { email: u.email, password: 'password-123' },
        })
      ).status,
    ).toBe(201);
  });
});
