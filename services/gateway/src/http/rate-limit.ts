import { errors, type AppError } from '@baas/common';
import type { GatewayObserver, LimiterName, RateLimiter, RateLimitResult } from '../ports';
import type { Exchange } from './exchange';

export interface RateLimits {
  global: RateLimiter;
  globalWindowSeconds: number;
  auth: RateLimiter;
  authWindowSeconds: number;
  /** Counts the requests each limiter refused. */
  observer?: Pick<GatewayObserver, 'rateLimited'>;
}

/**
 * Per client address: the global limit for everything, plus the stricter auth limit on
 * /api/userAuth/*. The headers describe the tightest limit that applied. Returns the error to
 * answer with, or undefined to go on.
 */
export async function applyRateLimits(ex: Exchange, limits: RateLimits): Promise<AppError | undefined> {
  const g = await limits.global.consume(ex.ip);
  let shown: RateLimitResult = g;
  let window = limits.globalWindowSeconds;
  let limiter: LimiterName = 'global';
  if (g.allowed && ex.route?.authLimiter) {
    const a = await limits.auth.consume(ex.ip);
    if (!a.allowed || a.remaining < g.remaining) {
      shown = a;
      window = limits.authWindowSeconds;
      limiter = 'auth';
    }
  }
  const { res } = ex;
  res.setHeader('RateLimit-Limit', String(shown.limit));
  res.setHeader('RateLimit-Remaining', String(shown.remaining));
  res.setHeader('RateLimit-Reset', String(shown.resetSeconds));
  res.setHeader('RateLimit-Policy', `${shown.limit};w=${window}`);
  if (shown.allowed) return undefined;
  limits.observer?.rateLimited(limiter);
  return errors.rateLimited(shown.resetSeconds);
}
