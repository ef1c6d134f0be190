import { SIGNING_KEY_PUBLISH_AHEAD_MS, type EventEnvelope, type ProjectId } from '@baas/common';
import { harnessOn, openTestStore, type Harness, type TestStore } from './harness';

/**
 * Rotating AUTH_SECRET in place (docs/operations.md): auth restarts with the new secret and the
 * old one as AUTH_SECRET_PREVIOUS, on the same database. What the old secret made keeps working
 * (the signing key it wrapped, codes, refresh tokens and their reuse detection); what is made
 * from then on uses the new one; once the previous secret is removed, only the new one counts.
 */
const SECRET_A = 'rotation-test-secret-A-0123456789abcdef0123456789';
const SECRET_B = 'rotation-test-secret-B-fedcba9876543210fedcba9876';
const HDR = { 'x-refresh-token-mode': 'header' };

let store: TestStore;
const running: Harness[] = [];

async function auth(env: Record<string, string>): Promise<Harness> {
  const h = await harnessOn(store, env, { keepStore: true });
  running.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  running.splice(running.indexOf(h), 1);
  await h.close();
}

beforeAll(async () => {
  store = await openTestStore('auth_rotation');
});
afterAll(async () => {
  for (const h of running) await h.close();
  await store?.close();
});

async function signup(h: Harness, p: ProjectId, email: string) {
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId: p,
    headers: HDR,
    body: { email, password: 'password-1' },
  });
  expect(r.status).toBe(201);
  return { userId: r.body.user._id as string, refresh: r.body.refreshToken as string };
}

const refresh = (h: Harness, p: ProjectId, token: string) =>
  h.call('POST', '/api/userAuth/refresh-token', {
    projectId: p,
    headers: { ...HDR, 'x-refresh-token': token },
  });

/** The link token and the 8-digit code of the user's last verification mail. */
async function verificationCodes(h: Harness, userId: string) {
  await h.relay.flush();
  const found = h.published
    .filter((e: EventEnvelope) => e.type === 'auth.verification_requested')
    .filter((e) => (e.data as { userId?: string }).userId === userId)
    .pop();
  if (!found) throw new Error(`no verification event for ${userId}`);
  return h.codes(found);
}

const verify = (h: Harness, p: ProjectId, body: Record<string, string>) =>
  h.call('POST', '/api/userAuth/verify-email', { projectId: p, body });

describe('rotating AUTH_SECRET', () => {
  it('keeps what the previous secret made working during the rotation, and only then refuses it', async () => {
    // Before: everything is made with secret A.
    const before = await auth({ AUTH_SECRET: SECRET_A });
    const p = await before.project();
    const byLink = await signup(before, p, 'link@x.io');
    const byOtp = await signup(before, p, 'otp@x.io');
    const late = await signup(before, p, 'late@x.io');
    const replayed = await signup(before, p, 'replay@x.io');
    const linkCode = await verificationCodes(before, byLink.userId);
    const otpCode = await verificationCodes(before, byOtp.userId);
    const lateCode = await verificationCodes(before, late.userId);
    const usedOnce = await refresh(before, p, replayed.refresh);
    expect(usedOnce.status).toBe(200);
    const oldKid = before.wiring.deps.keys.signingKey().kid;
    await stop(before);

    // During: AUTH_SECRET=B, AUTH_SECRET_PREVIOUS=A.
    const during = await auth({ AUTH_SECRET: SECRET_B, AUTH_SECRET_PREVIOUS: SECRET_A });
    expect(during.wiring.deps.keys.signingKey().kid).toBe(oldKid); // unwrapped with A, still signs
    expect((await verify(during, p, { token: linkCode.token })).status).toBe(200);
    expect((await verify(during, p, { email: 'otp@x.io', otp: otpCode.otp })).status).toBe(200);
    const rotated = await refresh(during, p, byLink.refresh);
    expect(rotated.status).toBe(200);
    // a token used under A is still its family's used token: replaying it revokes the family
    during.advance(60); // past REFRESH_REUSE_GRACE_SECONDS
    const replay = await refresh(during, p, replayed.refresh);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('REFRESH_TOKEN_REUSED');
    expect((await refresh(during, p, usedOnce.body.refreshToken)).status).toBe(401); // the family is dead
    // the token rotated under B keeps rotating
    const next = await refresh(during, p, rotated.body.refreshToken);
    expect(next.status).toBe(200);
    // new signing key, wrapped with B
    const sk = await during.call('POST', '/api/admin/signing-keys/rotate', { admin: true });
    expect(sk.status).toBe(200);
    during.advance(SIGNING_KEY_PUBLISH_AHEAD_MS / 1000); // it signs once every service can fetch it
    const newKid = during.wiring.deps.keys.signingKey().kid;
    expect(newKid).toBe(sk.body.data.kid);
    expect(newKid).not.toBe(oldKid);
    await stop(during);

    // After: AUTH_SECRET=B alone.
    const after = await auth({ AUTH_SECRET: SECRET_B });
    expect(after.wiring.deps.keys.signingKey().kid).toBe(newKid);
    expect((await verify(after, p, { token: lateCode.token })).status).toBe(400); // made with A
    expect((await verify(after, p, { email: 'late@x.io', otp: lateCode.otp })).status).toBe(400);
    expect((await refresh(after, p, next.body.refreshToken)).status).toBe(200);
  });
});
