import type { NextFunction, Request, Response } from 'express';
import { errors } from '@baas/common';
import type { RateLimiter, RateLimitResult } from '../ports';

function setHeaders(res: Response, r: RateLimitResult, windowSeconds: number): void {
  res.setHeader('RateLimit-Limit', String(r.limit));
  res.setHeader('RateLimit-Remaining', String(r.remaining));
  res.setHeader('RateLimit-Reset', String(r.resetSeconds));
  res.setHeader('RateLimit-Policy', `${r.limit};w=${windowSeconds}`);
}

/**
 * Per client IP (req.ip honours TRUST_PROXY): the global limit for everything, plus the stricter
 * auth limit on /api/userAuth/*. The headers describe the tightest limit that applied.
 */
export function rateLimitMiddleware(opts: {
  global: RateLimiter;
  globalWindowSeconds: number;
  auth: RateLimiter;
  authWindowSeconds: number;
}) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const g = await opts.global.consume(ip);
    let shown = g;
    let window = opts.globalWindowSeconds;
    if (g.allowed && req.gateway?.route.authLimiter) {
      const a = await opts.auth.consume(ip);
      if (!a.allowed || a.remaining < g.remaining) {
        shown = a;
        window = opts.authWindowSeconds;
      }
    }
    setHeaders(res, shown, window);
    if (!shown.allowed) return next(errors.rateLimited(shown.resetSeconds));
    next();
  };
}
