import type { ConsoleSessionResolution } from '@baas/common';
import type { ConsoleSessions } from '../ports';
import { CachedConsoleSessions } from './cached-console-sessions';

const P = '64b7f0c2a1b2c3d4e5f60718';

function session(accountId: string, expiresInMs = 3_600_000): ConsoleSessionResolution {
  return {
    sessionId: `s-${accountId}`,
    accountId,
    email: `${accountId}@example.com`,
    platformAdmin: false,
    memberships: [{ projectId: P, role: 'viewer' }],
    expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
  };
}

/** Auth's answers by token hash, counting the lookups (each takes a few ms). */
function authStub(byHash: Record<string, ConsoleSessionResolution | null>) {
  const stub = {
    calls: 0,
    answers: byHash,
    async resolve(tokenHash: string) {
      stub.calls++;
      const answer = stub.answers[tokenHash] ?? null; // as auth's database held it then
      await new Promise((r) => setTimeout(r, 5));
      return answer;
    },
  };
  return stub satisfies ConsoleSessions & { calls: number };
}

describe('CachedConsoleSessions', () => {
  it('serves a session from memory and shares one lookup between concurrent misses', async () => {
    const auth = authStub({ h1: session('a') });
    const cache = new CachedConsoleSessions(auth);
    const got = await Promise.all([
      cache.resolve('h1', 'r'),
      cache.resolve('h1', 'r'),
      cache.resolve('h1', 'r'),
    ]);
    expect(got.map((s) => s?.accountId)).toEqual(['a', 'a', 'a']);
    await cache.resolve('h1', 'r');
    expect(auth.calls).toBe(1);
    expect(cache.has('h1')).toBe(true);
  });

  it('keeps a session no longer than its TTL (30 s by default)', async () => {
    const auth = authStub({ h1: session('a') });
    const cache = new CachedConsoleSessions(auth, 20);
    await cache.resolve('h1', 'r');
    await new Promise((r) => setTimeout(r, 40));
    expect(cache.has('h1')).toBe(false);
    await cache.resolve('h1', 'r');
    expect(auth.calls).toBe(2);
  });

  it('never answers with a session past its expiry, even one still cached', async () => {
    let now = Date.now();
    const s = session('a', 1000);
    const auth = authStub({ h1: s });
    const cache = new CachedConsoleSessions(auth, 30_000, 5000, 100, () => now);
    expect(await cache.resolve('h1', 'r')).toEqual(s);
    now += 1001;
    expect(await cache.resolve('h1', 'r')).toBeNull();
  });

  it('does not cache a session that has already expired', async () => {
    const auth = authStub({ h1: session('a', -1) });
    const cache = new CachedConsoleSessions(auth);
    expect(await cache.resolve('h1', 'r')).toBeNull();
    expect(cache.has('h1')).toBe(false);
  });

  it('caches an unknown token only briefly', async () => {
    const auth = authStub({});
    const cache = new CachedConsoleSessions(auth, 30_000, 20);
    expect(await cache.resolve('nope', 'r')).toBeNull();
    await cache.resolve('nope', 'r');
    expect(auth.calls).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    await cache.resolve('nope', 'r');
    expect(auth.calls).toBe(2);
  });

  it("forgets every session of an account it is told about, and no one else's", async () => {
    const auth = authStub({ h1: session('a'), h2: session('a'), h3: session('b') });
    const cache = new CachedConsoleSessions(auth);
    await Promise.all(['h1', 'h2', 'h3'].map((h) => cache.resolve(h, 'r')));
    cache.invalidateAccount('a');
    expect([cache.has('h1'), cache.has('h2'), cache.has('h3')]).toEqual([false, false, true]);
    // revoked in the meantime: the next request sees it at once
    auth.answers.h1 = null;
    expect(await cache.resolve('h1', 'r')).toBeNull();
  });

  it("forgets one session and its account's others (sign-out, password change)", async () => {
    const auth = authStub({ h1: session('a'), h2: session('a'), h3: session('b') });
    const cache = new CachedConsoleSessions(auth);
    await Promise.all(['h1', 'h2', 'h3'].map((h) => cache.resolve(h, 'r')));
    cache.forgetSession('h1');
    expect([cache.has('h1'), cache.has('h2'), cache.has('h3')]).toEqual([false, false, true]);
    cache.forgetSession('unknown');
    expect(cache.has('h3')).toBe(true);
  });

  it('forgets everything on clear (NATS reconnected: announcements may be lost)', async () => {
    const auth = authStub({ h1: session('a'), h3: session('b') });
    const cache = new CachedConsoleSessions(auth);
    await Promise.all(['h1', 'h3'].map((h) => cache.resolve(h, 'r')));
    cache.clear();
    expect([cache.has('h1'), cache.has('h3')]).toEqual([false, false]);
  });

  it('neither caches nor shares a lookup that was in flight when an invalidation arrived', async () => {
    const auth = authStub({ h1: session('a') });
    const cache = new CachedConsoleSessions(auth);
    const before = cache.resolve('h1', 'r');
    cache.invalidateAccount('a');
    auth.answers.h1 = null; // revoked: what the invalidation announced
    const after = cache.resolve('h1', 'r');
    expect((await before)?.accountId).toBe('a');
    expect(await after).toBeNull();
    expect(auth.calls).toBe(2);
    expect(await cache.resolve('h1', 'r')).toBeNull();
  });
});
