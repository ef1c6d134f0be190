import type { NextFunction, Request, Response } from 'express';

const ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, x-request-id, x-refresh-token, x-refresh-token-mode, traceparent, tracestate';

/**
 * Preflights carry no x-api-key, so the project (and its allowlist) is unknown here: the
 * preflight is answered for the requesting origin and the real request is checked against the
 * project's allowlist (403 ORIGIN_NOT_ALLOWED, no Access-Control-Allow-Origin).
 */
export function corsPreflight(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Vary', 'Origin');
  const origin = req.header('origin');
  if (req.method !== 'OPTIONS' || !origin || !req.header('access-control-request-method')) return next();
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
}
