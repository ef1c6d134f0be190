import { Redis } from 'ioredis';
import type { ProjectId } from '@baas/common';
import { infra, requireInfra } from '../../../../test/support/infra';
import { startHarness, type Harness } from './harness';

/** Per-account login throttling (Redis): 3 attempts per 2 s window here. */
const LIMIT = 3;
const WINDOW_SECONDS = 2;

let h: Harness;
let redis: Redis;
beforeAll(async () => {
  await requireInfra('redis');
  h = await startHarness({
    LOGIN_ACCOUNT_MAX_ATTEMPTS: String(LIMIT),
    LOGIN_ACCOUNT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    REDIS_URL: infra.redisUrl,
  });
  redis = new Redis(infra.redisUrl);
});
afterAll(async () => {
  await h.close();
  redis.disconnect();
});

const login = (p: ProjectId, email: string, password: string) =>
  h.call('POST', '/api/userAuth/login', { projectId: p, body: { email, password } });

async function signup(p: ProjectId): Promise<string> {
  const email = `u${Math.random().toString(36).slice(2)}@x.io`;
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId: p,
    body: { email, password: 'password-1' },
  });
  expect(r.status).toBe(201);
  return email;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('login throttling per account', () => {
  it('answers 401 up to the limit and 429 with Retry-After one past it, alike for an existing and an unknown account', async () => {
    const p = await h.project();
    const existing = await signup(p);
    const unknown = `nobody${Math.random().toString(36).slice(2)}@x.io`;
    const answers: Record<string, { status: number; body: any; headers: Headers }[]> = {};
    for (const email of [existing, unknown]) {
      answers[email] = [];
      for (let i = 0; i < LIMIT + 1; i++) answers[email].push(await login(p, email, 'wrong-password'));
    }
    for (const email of [existing, unknown]) {
      const a = answers[email]!;
      expect(a.slice(0, LIMIT).map((r) => r.status)).toEqual(Array(LIMIT).fill(401));
      expect(a.slice(0, LIMIT).every((r) => r.body.code === 'INVALID_CREDENTIALS')).toBe(true);
      expect(a[LIMIT]!.status).toBe(429);
      const retryAfter = Number(a[LIMIT]!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    }
    // Same body, whether the account exists (only the request id differs).
    const strip = ({ requestId, ...rest }: { requestId: string }) => (void requestId, rest);
    expect(strip(answers[existing]![LIMIT]!.body)).toEqual(strip(answers[unknown]![LIMIT]!.body));
    expect(strip(answers[existing]![LIMIT]!.body)).toMatchObject({
      success: false,
      code: 'RATE_LIMITED',
      error: expect.any(String),
      message: expect.any(String),
    });
  });

  it('refuses even the right password while throttled, and lets it in once the window is over (never a lasting lock)', async () => {
    const p = await h.project();
    const email = await signup(p);
    for (let i = 0; i < LIMIT; i++) expect((await login(p, email, 'wrong-password')).status).toBe(401);
    // The email's case does not make a new account key.
    expect((await login(p, email.toUpperCase(), 'password-1')).status).toBe(429);
    await sleep(WINDOW_SECONDS * 1000 + 200);
    expect((await login(p, email, 'password-1')).status).toBe(200);
  });

  it('backs off: each lockout of the account lasts twice the one before, and a successful login starts over', async () => {
    const p = await h.project();
    const email = await signup(p);
    const lockout = async () => {
      for (let i = 0; i < LIMIT; i++) expect((await login(p, email, 'wrong-password')).status).toBe(401);
      const r = await login(p, email, 'wrong-password');
      expect(r.status).toBe(429);
      return Number(r.headers.get('retry-after'));
    };
    expect(await lockout()).toBeLessThanOrEqual(WINDOW_SECONDS);
    await sleep(WINDOW_SECONDS * 1000 + 200);
    expect(await lockout()).toBe(2 * WINDOW_SECONDS);
    // still locked after the plain window: the right password too
    await sleep(WINDOW_SECONDS * 1000 + 200);
    expect((await login(p, email, 'password-1')).status).toBe(429);
    await sleep(WINDOW_SECONDS * 1000);
    expect((await login(p, email, 'password-1')).status).toBe(200);
    expect(await lockout()).toBeLessThanOrEqual(WINDOW_SECONDS);
  });

  it('a successful login clears the count: the limit starts over', async () => {
    const p = await h.project();
    const email = await signup(p);
    for (let i = 0; i < LIMIT - 1; i++) expect((await login(p, email, 'wrong-password')).status).toBe(401);
    expect((await login(p, email, 'password-1')).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await login(p, email, 'wrong-password')).status).toBe(401);
    expect((await login(p, email, 'wrong-password')).status).toBe(429);
  });

  it('throttles one account only: the same email in another project and other accounts still log in', async () => {
    const p = await h.project();
    const q = await h.project();
    const victim = await signup(p);
    const bystander = await signup(p);
    const r = await h.call('POST', '/api/userAuth/signup', {
      projectId: q,
      body: { email: victim, password: 'password-1' },
    });
    expect(r.status).toBe(201);
    for (let i = 0; i < LIMIT + 1; i++) await login(p, victim, 'wrong-password');
    expect((await login(p, victim, 'password-1')).status).toBe(429);
    expect((await login(q, victim, 'password-1')).status).toBe(200);
    expect((await login(p, bystander, 'password-1')).status).toBe(200);
  });

  it('keeps no email in Redis, and every key it writes expires', async () => {
    const p = await h.project();
    const email = `trace${Math.random().toString(36).slice(2)}@x.io`;
    await login(p, email, 'wrong-password');
    const keys = await redis.keys('baas:login*');
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).not.toContain(email);
      expect(k).not.toContain(p);
      // every key has a TTL (-1 would be a key kept forever; -2 one that expired meanwhile): an
      // attempt count its window (or a lockout), the lockout count a day.
      const ttl = await redis.pttl(k);
      expect(ttl).not.toBe(-1);
      expect(ttl).toBeLessThanOrEqual(86_400 * 1000);
    }
  });
});
