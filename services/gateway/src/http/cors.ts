import type { ServerResponse } from 'node:http';
import { header, type Exchange } from './exchange';

const ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, x-request-id, x-refresh-token, x-refresh-token-mode, traceparent, tracestate';
const EXPOSED_HEADERS = 'x-request-id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';

/**
 * A preflight (OPTIONS with Access-Control-Request-Method) carries no x-api-key, so the project
 * and its allowlist are unknown: it is answered for the requesting origin, with credentials
 * allowed so that a credentialed request from an allowlisted origin can follow. The real request
 * decides (see `corsForProject`). Returns true when it answered.
 */
export function answerPreflight(ex: Exchange): boolean {
  const { req, res } = ex;
  const origin = header(req, 'origin');
  if (req.method !== 'OPTIONS' || !origin || !header(req, 'access-control-request-method')) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.statusCode = 204;
  res.end();
  return true;
}

/**
 * CORS headers of a keyed answer, once the project (and its allowlist) is known and the origin
 * passed it. Without an allowlist any origin may read the answer but never with credentials
 * (cookies: the refresh cookie): a page on any site cannot ride a user's cookie. Credentials are
 * allowed only for an origin the project lists.
 */
export function corsForProject(res: ServerResponse, origin: string, allowlisted: boolean): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  if (allowlisted) res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
