import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { requireInfra, infra } from '../../../../test/support/infra';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter';

/**
 * The limiter takes points from Redis in leases (see the adapter). Against a real Redis: the
 * limit is exact for one replica and never exceeded by several, the headers' `remaining` counts
 * down by one per request, and a busy client costs a fraction of a Redis call per request.
 */
let redis: Redis;
beforeAll(async () => {
  await requireInfra('redis');
  redis = new Redis(infra.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  // a command before the connection is ready fails, and the limiter falls back to its in-process
  // insurance limiter (one per replica): wait, so the tests measure Redis
  await new Promise((r) => redis.once('ready', r));
});
afterAll(async () => {
  redis?.disconnect();
});

const prefix = () => `rl:lease${randomBytes(4).toString('hex')}`;

/** The client a limiter is given, counting the limiter's calls (Redis is shared with other tests). */
function counting(): { client: Redis; calls: () => number } {
  let n = 0;
  const client = new Proxy(redis, {
    get(target, prop) {
      if (prop === 'rlflxIncr' || prop === 'eval' || prop === 'multi') n++;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { client, calls: () => n };
}

describe('rate limits taken from Redis in leases', () => {
  it('one replica: exactly the limit, remaining down by one, then 429 for the rest of the window', async () => {
    const { client, calls } = counting();
    const limiter = new RedisRateLimiter(client, 200, 60, prefix());
    const results = [];
    for (let i = 0; i < 230; i++) results.push(await limiter.consume('1.2.3.4'));
    expect(results.filter((r) => r.allowed)).toHaveLength(200);
    expect(results.slice(0, 200).every((r) => r.allowed)).toBe(true);
    expect(results.slice(0, 200).map((r) => r.remaining)).toEqual(
      Array.from({ length: 200 }, (_, i) => 199 - i),
    );
    expect(results.slice(200).every((r) => !r.allowed && r.remaining === 0 && r.resetSeconds > 0)).toBe(true);
    // far fewer Redis calls than requests (leases), and none once the limit is known reached
    expect(calls()).toBeGreaterThan(0);
    expect(calls()).toBeLessThan(80);
  });

  it('at the limit and one past it, with requests arriving together', async () => {
    const limiter = new RedisRateLimiter(redis, 30, 60, prefix());
    const results = await Promise.all(Array.from({ length: 31 }, () => limiter.consume('5.6.7.8')));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
  });

  it('several replicas never admit more than the limit together', async () => {
    const p = prefix();
    const replicas = [0, 1, 2].map(() => new RedisRateLimiter(redis, 100, 60, p));
    let allowed = 0;
    for (let round = 0; round < 15; round++) {
      const burst = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (replicas[(round + i) % 3] as RedisRateLimiter).consume('9.9.9.9'),
        ),
      );
      allowed += burst.filter((r) => r.allowed).length;
    }
    expect(allowed).toBeLessThanOrEqual(100);
    // what leases can strand: at most 1/16 of what was left, per replica
    expect(allowed).toBeGreaterThanOrEqual(100 - 3 * Math.ceil(100 / 16));
  });

  it('a small limit is taken one point at a time (the answers of a per-request limiter)', async () => {
    const p = prefix();
    const a = new RedisRateLimiter(redis, 5, 60, p);
    const b = new RedisRateLimiter(redis, 5, 60, p);
    const seq = [];
    for (let i = 0; i < 7; i++) seq.push((await (i % 2 ? a : b).consume('4.4.4.4')).allowed);
    expect(seq).toEqual([true, true, true, true, true, false, false]);
  });

  it('another key has its own count', async () => {
    const limiter = new RedisRateLimiter(redis, 2, 60, prefix());
    await limiter.consume('a');
    await limiter.consume('a');
    expect((await limiter.consume('a')).allowed).toBe(false);
    expect((await limiter.consume('b')).allowed).toBe(true);
  });
});
