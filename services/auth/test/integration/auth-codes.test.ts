import type { EventEnvelope, ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ CODE_MAX_ATTEMPTS: '5' });
});
afterAll(async () => {
  await h.close();
});

async function signup(p: ProjectId, email = `u${Math.random().toString(36).slice(2)}@x.io`) {
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId: p,
    headers: { 'x-refresh-token-mode': 'header' },
    body: { email, password: 'password-1' },
  });
  expect(r.status).toBe(201);
  return {
    email,
    userId: r.body.user._id as string,
    access: r.body.accessToken as string,
    refresh: r.body.refreshToken as string,
  };
}

/** A code event, with the link token (`code`) and the 8-digit code opened as the mail service would. */
type OpenedCodeEvent = EventEnvelope<'auth.verification_requested'> & {
  data: { code: string; otp: string };
};

async function lastEvent(type: string, userId: string): Promise<OpenedCodeEvent> {
  await h.relay.flush();
  const found = h.published
    .filter((e) => e.type === type && (e.data as { userId?: string }).userId === userId)
    .pop();
  if (!found) throw new Error(`no ${type} for ${userId}`);
  const codes = h.codes(found);
  expect(JSON.stringify(found)).not.toContain(codes.token);
  expect(JSON.stringify(found)).not.toContain(codes.otp);
  const e = found as EventEnvelope<'auth.verification_requested'>;
  return { ...e, data: { ...e.data, code: codes.token, otp: codes.otp } };
}

const wrongOtp = (otp: string) => String((Number(otp) + 1) % 1e8).padStart(8, '0');

describe('email verification', () => {
  it('signup publishes auth.verification_requested; the link token verifies once', async () => {
    const p = await h.project();
    const u = await signup(p);
    const e = await lastEvent('auth.verification_requested', u.userId);
    expect(e.data).toMatchObject({ userId: u.userId, email: u.email });
    expect(e.data.otp).toMatch(/^[0-9]{8}$/);
    expect(Date.parse(e.data.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    const stored = (await h.probe.firstUser(p))!.raw;
    expect(stored).not.toContain(e.data.code);
    expect(stored).not.toContain(`"${e.data.otp}"`);
    const ok = await h.call('POST', '/api/userAuth/verify-email', {
      projectId: p,
      body: { token: e.data.code },
    });
    expect(ok.status).toBe(200);
    const me = await h.call('GET', '/api/userAuth/me', { projectId: p, token: u.access });
    expect(me.body.user.emailVerified).toBe(true);
    const again = await h.call('POST', '/api/userAuth/verify-email', {
      projectId: p,
      body: { token: e.data.code },
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_CODE');
  });

  it('{ email, otp } works and the code is burned after 5 wrong tries (the 5th try is the last)', async () => {
    const p = await h.project();
    const u = await signup(p);
    const e = await lastEvent('auth.verification_requested', u.userId);
    for (let i = 0; i < 4; i++) {
      const r = await h.call('POST', '/api/userAuth/verify-email', {
        projectId: p,
        body: { email: u.email, otp: wrongOtp(e.data.otp) },
      });
      expect(r.status).toBe(400);
    }
    // 4 wrong so far: the right code on the 5th try still works.
    expect(
      (
        await h.call('POST', '/api/userAuth/verify-email', {
          projectId: p,
          body: { email: u.email, otp: e.data.otp },
        })
      ).status,
    ).toBe(200);

    const v = await signup(p);
    const f = await lastEvent('auth.verification_requested', v.userId);
    for (let i = 0; i < 5; i++)
      await h.call('POST', '/api/userAuth/verify-email', {
        projectId: p,
        body: { email: v.email, otp: wrongOtp(f.data.otp) },
      });
    const late = await h.call('POST', '/api/userAuth/verify-email', {
      projectId: p,
      body: { email: v.email, otp: f.data.otp },
    });
    expect(late.status).toBe(400);
    // Burned for the link form too.
    expect(
      (await h.call('POST', '/api/userAuth/verify-email', { projectId: p, body: { token: f.data.code } }))
        .status,
    ).toBe(400);
  });

  it('parallel wrong guesses cannot exceed the attempt limit', async () => {
    const p = await h.project();
    const u = await signup(p);
    const e = await lastEvent('auth.verification_requested', u.userId);
    await Promise.all(
      Array.from({ length: 12 }, () =>
        h.call('POST', '/api/userAuth/verify-email', {
          projectId: p,
          body: { email: u.email, otp: wrongOtp(e.data.otp) },
        }),
      ),
    );
    expect(await h.probe.count('codeAttempts', p)).toBe(5);
    expect(
      (
        await h.call('POST', '/api/userAuth/verify-email', {
          projectId: p,
          body: { email: u.email, otp: e.data.otp },
        })
      ).status,
    ).toBe(400);
  });

  it('expires after 24 h', async () => {
    const p = await h.project();
    const u = await signup(p);
    const e = await lastEvent('auth.verification_requested', u.userId);
    h.advance(24 * 3600 + 1);
    try {
      expect(
        (await h.call('POST', '/api/userAuth/verify-email', { projectId: p, body: { token: e.data.code } }))
          .status,
      ).toBe(400);
    } finally {
      h.advance(-(24 * 3600 + 1));
    }
    expect(
      (await h.call('POST', '/api/userAuth/verify-email', { projectId: p, body: { token: e.data.code } }))
        .status,
    ).toBe(200);
  });

  it('a code is bound to its project and purpose', async () => {
    const p1 = await h.project();
    const p2 = await h.project();
    const u = await signup(p1);
    const e = await lastEvent('auth.verification_requested', u.userId);
    expect(
      (await h.call('POST', '/api/userAuth/verify-email', { projectId: p2, body: { token: e.data.code } }))
        .status,
    ).toBe(400);
    const asReset = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p1,
      body: { token: e.data.code, newPassword: 'password-9' },
    });
    expect(asReset.status).toBe(400);
    expect(
      (await h.call('POST', '/api/userAuth/verify-email', { projectId: p1, body: { token: e.data.code } }))
        .status,
    ).toBe(200);
  });
});

describe('password reset', () => {
  it('request-password-reset answers 200 alike for known and unknown emails; only known ones publish', async () => {
    const p = await h.project();
    const u = await signup(p);
    const known = await h.call('POST', '/api/userAuth/request-password-reset', {
      projectId: p,
      body: { email: u.email },
    });
    const unknown = await h.call('POST', '/api/userAuth/request-password-reset', {
      projectId: p,
      body: { email: 'nobody@x.io' },
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect({ ...known.body }).toEqual({ ...unknown.body });
    await h.relay.flush();
    const resets = h.published.filter((e) => e.type === 'auth.password_reset_requested' && e.projectId === p);
    expect(new Set(resets.map((e) => (e.data as { email: string }).email))).toEqual(new Set([u.email]));
  });

  it('reset-password sets the password, burns the code, revokes every session, expires after 30 min', async () => {
    const p = await h.project();
    const u = await signup(p);
    await h.call('POST', '/api/userAuth/request-password-reset', { projectId: p, body: { email: u.email } });
    const e = await lastEvent('auth.password_reset_requested', u.userId);
    expect(Date.parse(e.data.expiresAt) - Date.now()).toBeLessThanOrEqual(30 * 60 * 1000 + 1000);
    const weak = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { token: e.data.code, newPassword: 'short' },
    });
    expect(weak.status).toBe(400);
    const common = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { token: e.data.code, newPassword: '12345678' },
    });
    expect(common.status).toBe(400);
    const ok = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { token: e.data.code, newPassword: 'new-password-1' },
    });
    expect(ok.status).toBe(200);
    const again = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { token: e.data.code, newPassword: 'new-password-2' },
    });
    expect(again.status).toBe(400);
    const refresh = await h.call('POST', '/api/userAuth/refresh-token', {
      projectId: p,
      headers: { 'x-refresh-token': u.refresh, 'x-refresh-token-mode': 'header' },
    });
    expect(refresh.status).toBe(401);
    expect((await h.call('GET', '/api/userAuth/me', { projectId: p, token: u.access })).status).toBe(401);
    expect(
      (
        await h.call('POST', '/api/userAuth/login', {
          projectId: p,
          body: { email: u.email, password: 'new-password-1' },
        })
      ).status,
    ).toBe(200);

    await h.call('POST', '/api/userAuth/request-password-reset', { projectId: p, body: { email: u.email } });
    const f = await lastEvent('auth.password_reset_requested', u.userId);
    h.advance(30 * 60 + 1);
    try {
      const late = await h.call('POST', '/api/userAuth/reset-password', {
        projectId: p,
        body: { email: u.email, otp: f.data.otp, newPassword: 'new-password-3' },
      });
      expect(late.status).toBe(400);
    } finally {
      h.advance(-(30 * 60 + 1));
    }
    const viaOtp = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { email: u.email, otp: f.data.otp, newPassword: 'new-password-3' },
    });
    expect(viaOtp.status).toBe(200);
  });

  it('parallel redemptions of one reset code: exactly one succeeds', async () => {
    const p = await h.project();
    const u = await signup(p);
    await h.call('POST', '/api/userAuth/request-password-reset', { projectId: p, body: { email: u.email } });
    const e = await lastEvent('auth.password_reset_requested', u.userId);
    const results = await Promise.all(
      ['pw-one-111', 'pw-two-222', 'pw-three-333', 'pw-four-444'].map((pw) =>
        h.call('POST', '/api/userAuth/reset-password', {
          projectId: p,
          body: { token: e.data.code, newPassword: pw },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('a reset code of user A does not work with user B’s email', async () => {
    const p = await h.project();
    const a = await signup(p);
    const b = await signup(p);
    await h.call('POST', '/api/userAuth/request-password-reset', { projectId: p, body: { email: a.email } });
    const e = await lastEvent('auth.password_reset_requested', a.userId);
    const r = await h.call('POST', '/api/userAuth/reset-password', {
      projectId: p,
      body: { email: b.email, otp: e.data.otp, newPassword: 'password-x1' },
    });
    expect(r.status).toBe(400);
  });
});

describe('project deletion', () => {
  it('removes the project’s users, sessions and schema; other projects are untouched', async () => {
    const p1 = await h.project();
    const p2 = await h.project();
    const a = await signup(p1);
    await signup(p2);
    const { deleteProjectUsers } = await import('../../src/domain/maintenance/delete-project-users');
    await deleteProjectUsers(h.wiring, p1);
    await deleteProjectUsers(h.wiring, p1); // idempotent
    expect(await h.probe.count('users', p1)).toBe(0);
    expect(await h.probe.count('refreshTokens', p1)).toBe(0);
    expect(await h.probe.count('users', p2)).toBe(1);
    const r = await h.call('POST', '/api/userAuth/refresh-token', {
      projectId: p1,
      headers: { 'x-refresh-token': a.refresh },
    });
    expect(r.status).toBe(401);
  });
});
