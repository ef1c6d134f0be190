import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type AppError, type GatewayAssertion } from '@baas/common';
import type { RouteMatch } from '../domain/routes';
import type { LimiterName, ResolvedProject } from '../ports';

/** One client request as the gateway's steps learn about it, in the order they run. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  id: string;
  /** The path without the query string, as the routes see it. */
  path: string;
  /** The client's address (TRUST_PROXY applied). */
  ip: string;
  route?: RouteMatch;
  project?: ResolvedProject;
  claims?: Omit<GatewayAssertion, 'requestId'>;
  /** The gateway's limiter that refused the request (429), for its log line. */
  limitedBy?: LimiterName;
}

/** A header's single value (the first when a client repeated it). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Answers with the contract's error body (and the error's own headers, e.g. Retry-After). */
export function sendError(ex: Exchange, err: AppError): void {
  const { res } = ex;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  sendJson(res, err.status, errorBody(err.code, err.message, ex.id, err.details));
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
