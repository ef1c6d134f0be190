import type { Redis } from 'ioredis';
import type { LRUCache } from 'lru-cache';
import { boundedLru } from '@baas/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from '@baas/common/rate-limiter';
import type { RateLimiter, RateLimitResult } from '../ports';

/** A lease is at most this share of what is left in the window... */
const LEASE_DIVISOR = 16;
/** ...and at most this many points. */
const MAX_LEASE = 100;

interface KeyState {
  /** When the window the points were counted in ends (local clock, from Redis' TTL). */
  windowEnd: number;
  /** The key's count in Redis after this replica's last lease. */
  total: number;
  /** Points of that lease not used yet. */
  available: number;
  /** A lease on its way (later requests for the key wait for it instead of asking again). */
  pending?: Promise<void>;
}

/**
 * Fixed-window limiter in Redis (rate-limiter-flexible: one atomic script per call, every key
 * with a TTL), consumed in leases: a replica far from a key's limit takes a few points at once
 * (1/16 of what is left, at most 100) and admits that many requests without asking Redis again
 * in the same window. Every admitted request was counted in Redis first, so the limit holds
 * across any number of replicas; near the limit the lease is one point, so the answers there are
 * the per-request ones. What a lease costs: points a replica took and did not use by the end of
 * the window are unavailable to the others (at most 1/16 of what was left when it took them).
 * Leasing made the Redis round trip (the gateway's second loopback hop, ~10% of a request's CPU)
 * rare for a busy client; a client at ordinary rates takes one point at a time as before.
 *
 * When Redis is unreachable the in-process insurance limiter with the same policy takes over:
 * limits keep holding per gateway replica instead of failing open or failing every request.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterRedis;
  private readonly keys: LRUCache<string, KeyState>;

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
    this.keys = boundedLru<string, KeyState>(100_000);
  }

  async consume(key: string): Promise<RateLimitResult> {
    for (;;) {
      const s = this.keys.get(key);
      if (s?.pending) {
        await s.pending;
        continue;
      }
      const now = Date.now();
      if (s && s.windowEnd > now) {
        if (s.available > 0) {
          s.available -= 1;
          return this.answer(true, s, now);
        }
        // the count never goes down within a window: no need to ask Redis again
        if (s.total >= this.points) return this.answer(false, s, now);
      }
      const known = s && s.windowEnd > now ? s.total : 0;
      const next: KeyState = { windowEnd: 0, total: known, available: 0 };
      const lease = Math.max(1, Math.min(MAX_LEASE, Math.floor((this.points - known) / LEASE_DIVISOR)));
      let admitted = false;
      next.pending = this.take(key, lease, next).then((ok) => {
        admitted = ok;
        delete next.pending;
      });
      this.keys.set(key, next);
      await next.pending;
      return this.answer(admitted, next, Date.now());
    }
  }

  /** Takes `lease` points; true when the first one is this request's. */
  private async take(key: string, lease: number, into: KeyState): Promise<boolean> {
    let r: RateLimiterRes;
    try {
      r = await this.limiter.consume(key, lease);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) {
        this.keys.delete(key);
        throw e;
      }
      r = e;
    }
    // Redis counts every point asked for; those up to the limit are granted (a lease asked
    // from a stale count may straddle it), the rest only keep the key at or over its limit.
    const before = r.consumedPoints - lease;
    const granted = Math.max(0, Math.min(lease, this.points - before));
    into.windowEnd = Date.now() + r.msBeforeNext;
    into.total = r.consumedPoints;
    into.available = Math.max(0, granted - 1);
    return granted > 0;
  }

  private answer(allowed: boolean, s: KeyState, now: number): RateLimitResult {
    return {
      allowed,
      limit: this.points,
      // counted in Redis minus what this replica still holds
      remaining: allowed ? Math.max(0, this.points - (s.total - s.available)) : 0,
      resetSeconds: Math.max(1, Math.ceil((s.windowEnd - now) / 1000)),
    };
  }
}
