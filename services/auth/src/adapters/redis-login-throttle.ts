import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ProjectId } from '@baas/common';
import type { LoginThrottle } from '../ports';

/**
 * Login attempts per project + email in a fixed window (one atomic script per attempt, so every
 * key has a TTL and a crash never leaves a permanent block). The email is hashed: Redis holds no
 * addresses. When Redis is unreachable an in-process limiter with the same policy takes over, so
 * the limit keeps holding per replica instead of failing open.
 */
export class RedisLoginThrottle implements LoginThrottle {
  private readonly limiter: RateLimiterRedis | RateLimiterMemory;

  constructor(redis: Redis | undefined, points: number, windowSeconds: number) {
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
  }

  async attempt(projectId: ProjectId, email: string): Promise<{ retryAfterSeconds?: number }> {
    try {
      await this.limiter.consume(accountKey(projectId, email));
      return {};
    } catch (e) {
      if (e instanceof RateLimiterRes)
        return { retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
      throw e;
    }
  }

  async succeeded(projectId: ProjectId, email: string): Promise<void> {
    await this.limiter.delete(accountKey(projectId, email)).catch(() => undefined);
  }
}

function accountKey(projectId: ProjectId, email: string): string {
  return createHash('sha256').update(`${projectId}\u0000${email}`).digest('base64url');
}
