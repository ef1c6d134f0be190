import type { RateLimiter, RateLimitResult } from '../ports';
import type { Exchange } from './exchange';
import { applyRateLimits, RefusedAddresses, type RateLimits } from './rate-limit';

/** An in-memory fixed-window limiter that records the keys it was asked for. */
function limiter(points: number) {
  const counts = new Map<string, number>();
  const keys: string[] = [];
  const l: RateLimiter & { keys: string[] } = {
    keys,
    consume: async (key): Promise<RateLimitResult> => {
      keys.push(key);
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return { allowed: n <= points, limit: points, remaining: Math.max(0, points - n), resetSeconds: 60 };
    },
  };
  return l;
}

function setUp() {
  const limits = {
    global: limiter(3),
    globalWindowSeconds: 900,
    auth: limiter(2),
    authWindowSeconds: 900,
    admin: limiter(5),
    adminWindowSeconds: 600,
    refused: new RefusedAddresses(),
  } satisfies RateLimits;
  const exchange = (ip: string, authLimiter = false) => {
    const headers: Record<string, string> = {};
    const ex = {
      ip,
      route: { service: 'auth', auth: 'admin', prefix: '/api/admin/projects', authLimiter },
      res: { setHeader: (k: string, v: string) => void (headers[k] = v) },
    } as unknown as Exchange;
    return { ex, headers };
  };
  return { limits, exchange };
}

describe('applyRateLimits', () => {
  it("counts an admin request with a credential against its caller's admin bucket only", async () => {
    const { limits, exchange } = setUp();
    for (let i = 0; i < 5; i++) {
      const { ex, headers } = exchange('10.0.0.1');
      expect(await applyRateLimits(ex, limits, { key: 'account:a' })).toBeUndefined();
      expect(headers['RateLimit-Policy']).toBe('5;w=600');
    }
    const { ex } = exchange('10.0.0.1');
    expect((await applyRateLimits(ex, limits, { key: 'account:a' }))?.code).toBe('RATE_LIMITED');
    expect(limits.global.keys).toEqual([]);
    // another account from the same address: its own bucket
    expect(await applyRateLimits(exchange('10.0.0.1').ex, limits, { key: 'account:b' })).toBeUndefined();
    expect(limits.admin.keys.at(-1)).toBe('account:b');
  });

  it('keeps an admin attempt without a credential on the per-address limit, and remembers an address refused for it', async () => {
    const { limits, exchange } = setUp();
    for (let i = 0; i < 3; i++)
      expect(await applyRateLimits(exchange('10.0.0.2').ex, limits, { key: undefined })).toBeUndefined();
    expect(limits.refused.has('10.0.0.2')).toBe(false);
    const { ex, headers } = exchange('10.0.0.2');
    expect((await applyRateLimits(ex, limits, { key: undefined }))?.code).toBe('RATE_LIMITED');
    expect(headers['RateLimit-Policy']).toBe('3;w=900');
    expect(limits.refused.has('10.0.0.2')).toBe(true);
    expect(limits.refused.has('10.0.0.3')).toBe(false);
    expect(limits.admin.keys).toEqual([]);
  });

  it('does not remember an address refused on other routes', async () => {
    const { limits, exchange } = setUp();
    for (let i = 0; i < 4; i++) await applyRateLimits(exchange('10.0.0.4').ex, limits);
    expect(limits.refused.has('10.0.0.4')).toBe(false);
  });

  it('adds the auth limit on the routes that ask for it, per address', async () => {
    const { limits, exchange } = setUp();
    expect(await applyRateLimits(exchange('10.0.0.5', true).ex, limits)).toBeUndefined();
    expect(await applyRateLimits(exchange('10.0.0.5', true).ex, limits)).toBeUndefined();
    const { ex, headers } = exchange('10.0.0.5', true);
    expect((await applyRateLimits(ex, limits))?.code).toBe('RATE_LIMITED');
    expect(headers['RateLimit-Limit']).toBe('2');
    expect(limits.auth.keys).toEqual(['10.0.0.5', '10.0.0.5', '10.0.0.5']);
  });
});
