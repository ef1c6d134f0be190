import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from '@baas/common/rate-limiter';
import type { LoginThrottle } from '../ports';

/** How long the lockouts of an account are remembered (each one doubles the next). */
const STRIKE_MEMORY_SECONDS = 86_400;
/** A lockout never lasts longer than this. */
const MAX_LOCKOUT_SECONDS = 86_400;

/**
 * Login attempts per realm (a project, or the console) + email in a fixed window (one atomic
 * script per attempt, so every key has a TTL and a crash never leaves a permanent block), with
 * backoff: the first refusal of a window is a lockout, and each lockout of the account within a
 * day lasts twice the one before (the window, then 2x, 4x... at most a day); a successful login
 * clears both counts. The email is hashed: Redis holds no addresses. When Redis is unreachable an
 * in-process limiter with the same policy takes over, so the limit keeps holding per replica
 * instead of failing open.
 */
export class RedisLoginThrottle implements LoginThrottle {
  private readonly limiter: RateLimiterRedis | RateLimiterMemory;
  private readonly strikes: RateLimiterRedis | RateLimiterMemory;

  constructor(
    redis: Redis | undefined,
    private readonly points: number,
    private readonly windowSeconds: number,
  ) {
    const memory = new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: 'login-mem' });
    this.limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          points,
          duration: windowSeconds,
          keyPrefix: 'baas:login',
          insuranceLimiter: memory,
        })
      : memory;
    // a counter, never a limit: how many lockouts the account had lately
    const strikes = { points: Number.MAX_SAFE_INTEGER, duration: STRIKE_MEMORY_SECONDS };
    const strikesMemory = new RateLimiterMemory({ ...strikes, keyPrefix: 'login-strikes-mem' });
    this.strikes = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          ...strikes,
          keyPrefix: 'baas:login-strikes',
          insuranceLimiter: strikesMemory,
        })
      : strikesMemory;
  }

  async attempt(realm: string, email: string): Promise<{ retryAfterSeconds?: number }> {
    const key = accountKey(realm, email);
    try {
      await this.limiter.consume(key);
      return {};
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      // The first refusal of a window (exactly one attempt sees it) starts a lockout.
      if (e.consumedPoints === this.points + 1) {
        const { consumedPoints: lockouts } = await this.strikes.consume(key);
        const seconds = Math.min(MAX_LOCKOUT_SECONDS, this.windowSeconds * 2 ** Math.min(lockouts - 1, 30));
        if (seconds > Math.ceil(e.msBeforeNext / 1000)) {
          await this.limiter.block(key, seconds);
          return { retryAfterSeconds: seconds };
        }
      }
      return { retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
    }
  }

  async succeeded(realm: string, email: string): Promise<void> {
    const key = accountKey(realm, email);
    await Promise.all([
      this.limiter.delete(key).catch(() => undefined),
      this.strikes.delete(key).catch(() => undefined),
    ]);
  }
}

/** The realm is the project id, or `console` for console accounts: they never share a key. */
function accountKey(realm: string, email: string): string {
  return createHash('sha256').update(`${realm}\u0000${email}`).digest('base64url');
}
