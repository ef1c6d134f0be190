import { boundedLru, errors, type AppError } from '@baas/common';
import type { GatewayObserver, LimiterName, RateLimiter, RateLimitResult } from '../ports';
import type { Exchange } from './exchange';

/**
 * Client addresses whose admin attempts without a valid credential were refused by the per-IP
 * limit, until its window ends: a console cookie from such an address is taken only when its
 * session is already in memory, so a flood of made-up cookies costs the auth service nothing
 * once the address is over its limit.
 */
export class RefusedAddresses {
  private readonly until = boundedLru<string, true>(50_000);

  add(ip: string, seconds: number): void {
    this.until.set(ip, true, { ttl: Math.max(1, seconds) * 1000 });
  }

  has(ip: string): boolean {
    return this.until.has(ip);
  }
}

export interface RateLimits {
  global: RateLimiter;
  globalWindowSeconds: number;
  auth: RateLimiter;
  authWindowSeconds: number;
  /** Per admin caller (console account or the token), instead of the global limit. */
  admin: RateLimiter;
  adminWindowSeconds: number;
  refused: RefusedAddresses;
  /** Counts the requests each limiter refused. */
  observer?: Pick<GatewayObserver, 'rateLimited'>;
}

/**
 * Per client address: the global limit for everything, plus the stricter auth limit on the
 * routes that ask for it (/api/userAuth/*, /api/console/*). An admin request made with the token
 * or a live console session (`adminKey`) counts against its caller's admin limit instead of its
 * address (a console makes many calls); one without stays on its address. The headers describe
 * the tightest limit that applied. Returns the error to answer with, or undefined to go on.
 */
export async function applyRateLimits(
  ex: Exchange,
  limits: RateLimits,
  admin?: { key: string | undefined },
): Promise<AppError | undefined> {
  let shown: RateLimitResult;
  let window: number;
  let limiter: LimiterName;
  if (admin?.key !== undefined) {
    shown = await limits.admin.consume(admin.key);
    window = limits.adminWindowSeconds;
    limiter = 'admin';
  } else {
    const g = await limits.global.consume(ex.ip);
    shown = g;
    window = limits.globalWindowSeconds;
    limiter = 'global';
    if (g.allowed && ex.route?.authLimiter) {
      const a = await limits.auth.consume(ex.ip);
      if (!a.allowed || a.remaining < g.remaining) {
        shown = a;
        window = limits.authWindowSeconds;
        limiter = 'auth';
      }
    }
    if (admin && !shown.allowed) limits.refused.add(ex.ip, shown.resetSeconds);
  }
  const { res } = ex;
  res.setHeader('RateLimit-Limit', String(shown.limit));
  res.setHeader('RateLimit-Remaining', String(shown.remaining));
  res.setHeader('RateLimit-Reset', String(shown.resetSeconds));
  res.setHeader('RateLimit-Policy', `${shown.limit};w=${window}`);
  if (shown.allowed) return undefined;
  limits.observer?.rateLimited(limiter);
  ex.limitedBy = limiter;
  return errors.rateLimited(shown.resetSeconds);
}
