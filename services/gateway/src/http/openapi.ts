import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errors } from '@baas/common';
import { header, sendError, type Exchange } from './exchange';

/**
 * The committed OpenAPI document (`services/gateway/openapi.json`, written by `npm run openapi`
 * from the services' route registries), beside `src/` and `dist/` alike, read once.
 */
export const OPENAPI_FILE = join(__dirname, '..', '..', 'openapi.json');

let cached: { body: Buffer; etag: string } | undefined;

function document(): { body: Buffer; etag: string } {
  if (!cached) {
    const body = readFileSync(OPENAPI_FILE);
    cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  }
  return cached;
}

/** GET /api/openapi.json: public, cacheable, readable from any origin (doc viewers, generators). */
export function answerOpenApi(ex: Exchange): void {
  const { res } = ex;
  const method = ex.req.method ?? 'GET';
  const doc = document();
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('ETag', doc.etag);
  // Other methods are unknown routes, as on every service.
  if (method !== 'GET' && method !== 'HEAD') return sendError(ex, errors.routeNotFound());
  if (header(ex.req, 'if-none-match') === doc.etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', doc.body.length);
  res.end(method === 'HEAD' ? undefined : doc.body);
}
