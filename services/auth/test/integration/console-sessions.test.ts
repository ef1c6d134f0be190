import { consoleSessionTokenHash, csrfTokenFor } from '@baas/common';
import { infra, requireInfra } from '../../../../test/support/infra';
import { startHarness, type Harness } from './harness';
import {
  PASSWORD,
  consoleCookie,
  createAccount,
  eventsOf,
  mailedToken,
  setCookieLine,
  signIn,
  uniqueEmail,
  type SignedIn,
} from './console-support';

/**
 * Console sign-in and sessions (issue 16): login, the cookie, the session, the gateway's
 * resolution, expiry, sign-out and password change with their CSRF check, password reset, and
 * login throttling. Runs on TEST_STORE (postgres by default, or mongodb).
 */
const LIMIT = 3;
const WINDOW_SECONDS = 2;
const SESSION_TTL = 600;
const RESEND_SECONDS = 30;

let h: Harness;
beforeAll(async () => {
  await requireInfra('redis');
  h = await startHarness({
    LOGIN_ACCOUNT_MAX_ATTEMPTS: String(LIMIT),
    LOGIN_ACCOUNT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    REDIS_URL: infra.redisUrl,
    CONSOLE_SESSION_TTL_SECONDS: String(SESSION_TTL),
    CODE_RESEND_INTERVAL_SECONDS: String(RESEND_SECONDS),
  });
});
afterAll(async () => {
  await h?.close();
});

const login = (email: string, password: string, headers: Record<string, string> = {}) =>
  h.call('POST', '/api/console/login', { body: { email, password }, headers });
const current = (s: SignedIn) => h.call('GET', '/api/console/session', { headers: s.headers() });
const resolve = (tokenHash: string) =>
  h.call('POST', '/internal/console/sessions/resolve', { body: { tokenHash } });
const resolveOf = (s: SignedIn) => resolve(consoleSessionTokenHash(s.token));
const strip = ({ requestId, ...rest }: { requestId: string }) => (void requestId, rest);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('console sign-in', () => {
  it('answers the session and sets an HttpOnly, SameSite=Strict cookie on /api for the session lifetime', async () => {
    const a = await createAccount(h);
    const r = await login(a.email, a.password);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const token = consoleCookie(r.headers)!;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const line = setCookieLine(r.headers)!;
    expect(line).toContain('HttpOnly');
    expect(line).toContain('SameSite=Strict');
    expect(line).toContain('Path=/api');
    expect(line).toContain(`Max-Age=${SESSION_TTL}`);
    expect(line).not.toContain('Secure');
    expect(r.body).toEqual({
      success: true,
      message: 'Signed in',
      data: {
        account: { id: a.id, email: a.email, platformAdmin: false },
        memberships: [],
        csrfToken: csrfTokenFor(token),
        expiresAt: expect.any(String),
      },
    });
    const ttl = (Date.parse(r.body.data.expiresAt) - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(SESSION_TTL - 30);
    expect(ttl).toBeLessThanOrEqual(SESSION_TTL + 1);
  });

  it('marks the cookie Secure when the client came over https', async () => {
    const a = await createAccount(h);
    const r = await login(a.email, a.password, { 'x-forwarded-proto': 'https' });
    expect(r.status).toBe(200);
    expect(setCookieLine(r.headers)).toContain('Secure');
  });

  it('takes the email in any case and with surrounding spaces', async () => {
    const a = await createAccount(h);
    expect((await login(`  ${a.email.toUpperCase()} `, a.password)).status).toBe(200);
  });

  it('refuses a wrong password and an unknown email with the same 401, and sets no cookie', async () => {
    const a = await createAccount(h);
    const wrong = await login(a.email, 'wrong-password');
    const unknown = await login(uniqueEmail('nobody'), 'wrong-password');
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(consoleCookie(r.headers)).toBeUndefined();
    }
    expect(strip(wrong.body)).toEqual(strip(unknown.body));
    expect(wrong.body).toMatchObject({ success: false, code: 'INVALID_CREDENTIALS' });
  });

  it('refuses a password longer than 128 characters before hashing, and an unknown field', async () => {
    const a = await createAccount(h);
    expect((await login(a.email, 'p'.repeat(129))).status).toBe(400);
    expect((await login(a.email, 'p'.repeat(128))).status).toBe(401);
    const extra = await h.call('POST', '/api/console/login', {
      body: { email: a.email, password: a.password, remember: true },
    });
    expect(extra.status).toBe(400);
  });
});

describe('console login throttling', () => {
  it('answers 401 up to the limit and 429 with Retry-After past it, alike for an existing and an unknown account', async () => {
    const existing = (await createAccount(h)).email;
    const unknown = uniqueEmail('nobody');
    for (const email of [existing, unknown]) {
      for (let i = 0; i < LIMIT; i++) expect((await login(email, 'wrong-password')).status).toBe(401);
      const r = await login(email, 'wrong-password');
      expect(r.status).toBe(429);
      expect(r.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    }
  });

  it('refuses the right password while throttled and lets it in once the window is over', async () => {
    const a = await createAccount(h);
    for (let i = 0; i < LIMIT; i++) expect((await login(a.email, 'wrong-password')).status).toBe(401);
    expect((await login(a.email.toUpperCase(), a.password)).status).toBe(429);
    await sleep(WINDOW_SECONDS * 1000 + 200);
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it('counts console accounts apart from end users with the same email', async () => {
    const a = await createAccount(h);
    const p = await h.project();
    const signup = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: a.email, password: 'password-1' },
    });
    expect(signup.status).toBe(201);
    for (let i = 0; i < LIMIT + 1; i++) await login(a.email, 'wrong-password');
    expect((await login(a.email, a.password)).status).toBe(429);
    const user = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: a.email, password: 'password-1' },
    });
    expect(user.status).toBe(200);
  });

  it('a successful sign-in clears the count', async () => {
    const a = await createAccount(h);
    for (let i = 0; i < LIMIT - 1; i++) await login(a.email, 'wrong-password');
    expect((await login(a.email, a.password)).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await login(a.email, 'wrong-password')).status).toBe(401);
  });
});

describe('the console session', () => {
  it('is answered for the cookie, and 401 CONSOLE_SESSION_REQUIRED without a live one', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const r = await current(s);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ account: { id: a.id, email: a.email }, csrfToken: s.csrf });
    const tries: Record<string, string>[] = [
      {},
      { cookie: 'baas_console=' },
      { cookie: 'baas_console=not-a-session' },
    ];
    for (const headers of tries) {
      const none = await h.call('GET', '/api/console/session', { headers });
      expect(none.status).toBe(401);
      expect(none.body.code).toBe('CONSOLE_SESSION_REQUIRED');
    }
  });

  it('resolves for the gateway by its digest only: the account, its flags and roles', async () => {
    const a = await createAccount(h, { platformAdmin: true });
    const s = await signIn(h, a.email);
    const r = await resolveOf(s);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      sessionId: expect.stringMatching(/^[a-f0-9]{24}$/),
      accountId: a.id,
      email: a.email,
      platformAdmin: true,
      memberships: [],
      expiresAt: expect.any(String),
    });
    const unknown = await resolve('0'.repeat(64));
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('CONSOLE_SESSION_INVALID');
    // The token itself is not a digest: nothing resolves a session from it.
    expect(
      (await h.call('POST', '/internal/console/sessions/resolve', { body: { tokenHash: s.token } })).status,
    ).toBe(400);
  });

  it('needs a gateway assertion to resolve', async () => {
    const r = await h.call('POST', '/internal/console/sessions/resolve', {
      noAssertion: true,
      body: { tokenHash: '0'.repeat(64) },
    });
    expect(r.status).toBe(401);
  });

  it('ends at its absolute expiry: the session and its resolution are refused', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    h.advance(SESSION_TTL - 5);
    expect((await current(s)).status).toBe(200);
    h.advance(6);
    expect((await current(s)).status).toBe(401);
    expect((await resolveOf(s)).status).toBe(401);
  });

  it('stores no token: only its SHA-256', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const raw = await rawSessions(a.id);
    expect(raw).toContain(consoleSessionTokenHash(s.token));
    expect(raw).not.toContain(s.token);
  });
});

describe('console sign-out', () => {
  it('is refused without the CSRF header or with a wrong one, and the session stays live', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const missing = await h.call('POST', '/api/console/logout', { headers: s.headers() });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('CSRF_TOKEN_INVALID');
    const other = await signIn(h, a.email);
    const wrong = await h.call('POST', '/api/console/logout', {
      headers: { ...s.headers(), 'x-csrf-token': other.csrf },
    });
    expect(wrong.status).toBe(403);
    expect((await current(s)).status).toBe(200);
  });

  it('revokes the session, clears the cookie and tells the gateways', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const before = h.invalidated.accounts.length;
    const r = await h.call('POST', '/api/console/logout', { headers: s.headers(true) });
    expect(r.status).toBe(200);
    expect(consoleCookie(r.headers)).toBe('');
    expect(setCookieLine(r.headers)).toContain('Max-Age=0');
    expect((await current(s)).status).toBe(401);
    expect((await resolveOf(s)).status).toBe(401);
    expect(h.invalidated.accounts.slice(before)).toContain(a.id);
    // Signing out again is no error; without a cookie it is 401.
    expect((await h.call('POST', '/api/console/logout', { headers: s.headers(true) })).status).toBe(200);
    const none = await h.call('POST', '/api/console/logout', { headers: { 'x-csrf-token': s.csrf } });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('CONSOLE_SESSION_REQUIRED');
  });

  it('ends only its own session', async () => {
    const a = await createAccount(h);
    const one = await signIn(h, a.email);
    const two = await signIn(h, a.email);
    expect((await h.call('POST', '/api/console/logout', { headers: one.headers(true) })).status).toBe(200);
    expect((await current(two)).status).toBe(200);
  });
});

describe('console password change', () => {
  const change = (s: SignedIn, body: unknown, csrf = true) =>
    h.call('POST', '/api/console/password', { headers: s.headers(csrf), body });

  it('needs the CSRF header and the current password', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const noCsrf = await change(s, { currentPassword: a.password, newPassword: 'new-password-1' }, false);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_TOKEN_INVALID');
    const wrong = await change(s, { currentPassword: 'not-it-at-all', newPassword: 'new-password-1' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_CURRENT_PASSWORD');
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it('applies the password policy: 8 to 128 characters, none of the most breached', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    expect((await change(s, { currentPassword: a.password, newPassword: 'p'.repeat(7) })).status).toBe(400);
    expect((await change(s, { currentPassword: a.password, newPassword: 'Password' })).status).toBe(400);
    expect((await change(s, { currentPassword: a.password, newPassword: 'p'.repeat(129) })).status).toBe(400);
    expect((await change(s, { currentPassword: a.password, newPassword: 'p'.repeat(128) })).status).toBe(200);
    expect((await change(s, { currentPassword: 'p'.repeat(128), newPassword: 'q'.repeat(8) })).status).toBe(
      200,
    );
    expect((await login(a.email, 'q'.repeat(8))).status).toBe(200);
  });

  it("ends the account's other sessions and keeps the caller's; the old password stops working", async () => {
    const a = await createAccount(h);
    const mine = await signIn(h, a.email);
    const other = await signIn(h, a.email);
    const before = h.invalidated.accounts.length;
    const r = await change(mine, { currentPassword: a.password, newPassword: 'brand-new-password' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ revokedSessions: 1 });
    expect((await current(mine)).status).toBe(200);
    expect((await current(other)).status).toBe(401);
    expect((await resolveOf(other)).status).toBe(401);
    expect(h.invalidated.accounts.slice(before)).toContain(a.id);
    expect((await login(a.email, a.password)).status).toBe(401);
    expect((await login(a.email, 'brand-new-password')).status).toBe(200);
  });
});

describe('console password reset', () => {
  const request = (email: string) =>
    h.call('POST', '/api/console/password-reset/request', { body: { email } });
  const reset = (token: string, newPassword: string) =>
    h.call('POST', '/api/console/password-reset', { body: { token, newPassword } });

  it('answers 202 alike whether or not an account has the email, and mails only an account', async () => {
    const a = await createAccount(h);
    const nobody = uniqueEmail('nobody');
    const known = await request(a.email);
    const unknown = await request(nobody);
    expect(known.status).toBe(202);
    expect(strip(known.body)).toEqual(strip(unknown.body));
    await h.relay.flush();
    expect(eventsOf(h, 'console.password_reset_requested', a.email)).toHaveLength(1);
    expect(eventsOf(h, 'console.password_reset_requested', nobody)).toHaveLength(0);
    const [e] = eventsOf(h, 'console.password_reset_requested', a.email);
    expect(e!.projectId).toBeNull();
    expect(Object.keys(e!.data).sort()).toEqual(['accountId', 'email', 'sealed']);
    expect(e!.data).toMatchObject({ accountId: a.id, email: a.email });
    // The link token travels sealed only.
    const token = h.consoleToken(e!);
    expect(JSON.stringify(e)).not.toContain(token);
  });

  it('sets the new password with the mailed token, once, and ends every session of the account', async () => {
    const a = await createAccount(h);
    const s1 = await signIn(h, a.email);
    const s2 = await signIn(h, a.email);
    expect((await request(a.email)).status).toBe(202);
    const token = await mailedToken(h, 'console.password_reset_requested', a.email);
    const before = h.invalidated.accounts.length;
    // Policy first: a too-short password uses nothing up.
    expect((await reset(token, 'p'.repeat(7))).status).toBe(400);
    expect((await reset(token, 'qwertyuiop')).status).toBe(400);
    const r = await reset(token, 'reset-password-1');
    expect(r.status).toBe(200);
    for (const s of [s1, s2]) expect((await current(s)).status).toBe(401);
    expect(h.invalidated.accounts.slice(before)).toContain(a.id);
    expect((await login(a.email, a.password)).status).toBe(401);
    expect((await login(a.email, 'reset-password-1')).status).toBe(200);
    const again = await reset(token, 'another-password-1');
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_CODE');
  });

  it('refuses an unknown or expired token, and an earlier token once a new one was mailed', async () => {
    const a = await createAccount(h);
    expect((await reset('not-a-token', 'reset-password-1')).body.code).toBe('INVALID_CODE');
    await request(a.email);
    const first = await mailedToken(h, 'console.password_reset_requested', a.email);
    h.advance(RESEND_SECONDS + 1);
    await request(a.email);
    const second = await mailedToken(h, 'console.password_reset_requested', a.email);
    expect(second).not.toBe(first);
    expect((await reset(first, 'reset-password-1')).status).toBe(400);
    h.advance(3600 + 1);
    const expired = await reset(second, 'reset-password-1');
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe('INVALID_CODE');
    expect((await login(a.email, a.password)).status).toBe(200);
  });

  it('mails an account at most once per resend interval', async () => {
    const a = await createAccount(h);
    await request(a.email);
    await request(a.email);
    await h.relay.flush();
    expect(eventsOf(h, 'console.password_reset_requested', a.email)).toHaveLength(1);
    h.advance(RESEND_SECONDS + 1);
    await request(a.email);
    await h.relay.flush();
    expect(eventsOf(h, 'console.password_reset_requested', a.email)).toHaveLength(2);
  });
});

describe("admin revocation of an account's sessions", () => {
  it('signs the account out everywhere and says how many sessions ended', async () => {
    const a = await createAccount(h);
    const s1 = await signIn(h, a.email);
    const s2 = await signIn(h, a.email);
    const before = h.invalidated.accounts.length;
    const r = await h.call('POST', `/api/admin/console/accounts/${a.id}/sessions/revoke`, { admin: true });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ revoked: 2 });
    for (const s of [s1, s2]) expect((await current(s)).status).toBe(401);
    expect(h.invalidated.accounts.slice(before)).toContain(a.id);
    expect((await login(a.email, PASSWORD)).status).toBe(200);
    const unknown = await h.call('POST', `/api/admin/console/accounts/${'0'.repeat(24)}/sessions/revoke`, {
      admin: true,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('ACCOUNT_NOT_FOUND');
  });
});

/** Everything stored about the account's sessions, as text. */
async function rawSessions(accountId: string): Promise<string> {
  const store = h.store;
  if (store.kind === 'postgres') {
    const { rows } = await store.pool.query(`SELECT * FROM console_sessions WHERE account_id = $1`, [
      accountId,
    ]);
    return JSON.stringify(rows);
  }
  return JSON.stringify(await store.db.collection('console_sessions').find({ accountId }).toArray());
}
