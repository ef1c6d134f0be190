import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter, RateLimitResult } from '../ports';

/**
 * Fixed-window limiter in Redis (one atomic script per request, so every key has a TTL). When
 * Redis is unreachable the in-process insurance limiter with the same policy takes over: limits
 * keep holding per gateway replica instead of failing open or failing every request.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly points: number,
    durationSeconds: number,
    keyPrefix: string,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      points,
      duration: durationSeconds,
      keyPrefix,
      insuranceLimiter: new RateLimiterMemory({
        points,
        duration: durationSeconds,
        keyPrefix: `${keyPrefix}-mem`,
      }),
    });
  }

  async consume(key: string): Promise<RateLimitResult> {
    try {
      const r = await this.limiter.consume(key);
      return this.result(true, r);
    } catch (e) {
      if (e instanceof RateLimiterRes) return this.result(false, e);
      throw e;
    }
  }

  private result(allowed: boolean, r: RateLimiterRes): RateLimitResult {
    return {
      allowed,
      limit: this.points,
      remaining: Math.max(0, r.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(r.msBeforeNext / 1000)),
    };
  }
}
