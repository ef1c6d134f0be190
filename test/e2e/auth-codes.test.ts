import { createProject } from '../support/e2e';
import {
  authClient,
  EventTap,
  HEADER_MODE,
  signupUser,
  uniqueEmail,
  expectPasswordChanged,
} from './auth-support';

/** Issue 3: verification and reset codes through the gateway; the codes are read from the published events. */
const call = authClient();
let tap: EventTap;
beforeAll(async () => {
  tap = await EventTap.open();
});
afterAll(async () => {
  await tap.close();
});

const wrong = (otp: string) => String((Number(otp) + 1) % 1e8).padStart(8, '0');

describe('verify-email', () => {
  it('signup publishes auth.verification_requested with what the mail needs; { token } verifies once', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const e = await tap.waitFor('auth.verification_requested', p.id, u.email);
    expect(e.data).toMatchObject({
      userId: u.userId,
      email: u.email,
      code: expect.any(String),
      otp: expect.stringMatching(/^[0-9]{8}$/),
    });
    const ttl = Date.parse(e.data.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(23.9 * 3600e3);
    expect(ttl).toBeLessThanOrEqual(24 * 3600e3);
    expect(tap.count('user.created', p.id, (x) => x.data.userId === u.userId)).toBe(1);
    const ok = await call('POST', '/api/userAuth/verify-email', {
      key: p.publishableKey,
      body: { token: e.data.code },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.success).toBe(true);
    const me = await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: u.access });
    expect(me.body.user.emailVerified).toBe(true);
    const again = await call('POST', '/api/userAuth/verify-email', {
      key: p.publishableKey,
      body: { token: e.data.code },
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_CODE');
  });

  it('{ email, otp }: 4 wrong tries then the right code works; 5 wrong tries burn the code in both forms', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const e = await tap.waitFor('auth.verification_requested', p.id, u.email);
    for (let i = 0; i < 4; i++)
      expect(
        (
          await call('POST', '/api/userAuth/verify-email', {
            key: p.publishableKey,
            body: { email: u.email, otp: wrong(e.data.otp!) },
          })
        ).status,
      ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/verify-email', {
          key: p.publishableKey,
          body: { email: u.email, otp: e.data.otp },
        })
      ).status,
    ).toBe(200);

    const v = await signupUser(call, p.publishableKey);
    const f = await tap.waitFor('auth.verification_requested', p.id, v.email);
    for (let i = 0; i < 5; i++)
      await call('POST', '/api/userAuth/verify-email', {
        key: p.publishableKey,
        body: { email: v.email, otp: wrong(f.data.otp!) },
      });
    expect(
      (
        await call('POST', '/api/userAuth/verify-email', {
          key: p.publishableKey,
          body: { email: v.email, otp: f.data.otp },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/verify-email', {
          key: p.publishableKey,
          body: { token: f.data.code },
        })
      ).status,
    ).toBe(400);
  });

  it('a code is worthless in another project, for another purpose, and malformed bodies are 400', async () => {
    const p = await createProject();
    const q = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const e = await tap.waitFor('auth.verification_requested', p.id, u.email);
    expect(
      (
        await call('POST', '/api/userAuth/verify-email', {
          key: q.publishableKey,
          body: { token: e.data.code },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/reset-password', {
          key: p.publishableKey,
          body: { token: e.data.code, newPassword: 'password-999' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await call('POST', '/api/userAuth/verify-email', { key: p.publishableKey, body: {} })).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/verify-email', {
          key: p.publishableKey,
          body: { token: e.data.code },
        })
      ).status,
    ).toBe(200);
  });
});

describe('password reset', () => {
  it('request-password-reset is 200 with the same body for known and unknown emails; only the known one publishes', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const ghost = uniqueEmail('ghost');
    const known = await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email: u.email },
    });
    const unknown = await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email: ghost },
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const k = { ...known.body, requestId: undefined };
    const n = { ...unknown.body, requestId: undefined };
    expect(k).toEqual(n);
    const e = await tap.waitFor('auth.password_reset_requested', p.id, u.email);
    expect(e.data).toMatchObject({
      userId: u.userId,
      email: u.email,
      code: expect.any(String),
      otp: expect.stringMatching(/^[0-9]{8}$/),
    });
    expect(Date.parse(e.data.expiresAt) - Date.now()).toBeLessThanOrEqual(30 * 60e3);
    expect(tap.count('auth.password_reset_requested', p.id, (x) => x.data.email === ghost)).toBe(0);
  });

  it('reset-password with { token }: new password works, old does not, every session ends, the code is single use', async () => {
    const p = await createProject();
    const u = await signupUser(call, p.publishableKey);
    const cookieLogin = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: u.email, password: u.password },
    });
    expect(cookieLogin.status).toBe(200);
    await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email: u.email },
    });
    const e = await tap.waitFor('auth.password_reset_requested', p.id, u.email);
    expect(
      (
        await call('POST', '/api/userAuth/reset-password', {
          key: p.publishableKey,
          body: { token: e.data.code, newPassword: 'short' },
        })
      ).status,
    ).toBe(400);
    const ok = await call('POST', '/api/userAuth/reset-password', {
      key: p.publishableKey,
      body: { token: e.data.code, newPassword: 'brand-new-pass' },
    });
    expect(ok.status).toBe(200);
    expect(
      (
        await call('POST', '/api/userAuth/reset-password', {
          key: p.publishableKey,
          body: { token: e.data.code, newPassword: 'other-new-pass' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/refresh-token', {
          key: p.publishableKey,
          headers: { ...HEADER_MODE, 'x-refresh-token': u.refresh },
        })
      ).status,
    ).toBe(401);
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: cookieLogin.body.accessToken }))
        .status,
    ).toBe(401);
    await expectPasswordChanged(call, p.publishableKey, u.email, u.password, 'brand-new-pass');
  });

  it('reset-password with { email, otp } works; another user’s email with that otp does not', async () => {
    const p = await createProject();
    const a = await signupUser(call, p.publishableKey);
    const b = await signupUser(call, p.publishableKey);
    await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email: a.email },
    });
    const e = await tap.waitFor('auth.password_reset_requested', p.id, a.email);
    expect(
      (
        await call('POST', '/api/userAuth/reset-password', {
          key: p.publishableKey,
          body: { email: b.email, otp: e.data.otp, newPassword: 'brand-new-pass' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/userAuth/reset-password', {
          key: p.publishableKey,
          body: { email: a.email, otp: e.data.otp, newPassword: 'brand-new-pass' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email: a.email, password: 'brand-new-pass' },
        })
      ).status,
    ).toBe(200);
  });
});
