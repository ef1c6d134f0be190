import { Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import {
  errorBody,
  errors,
  type AppError,
  type Logger,
  type ServiceName,
  ASSERTION_HEADER,
} from '@baas/common';

/** Headers a client must never be able to pass through to a service. */
const STRIPPED = [ASSERTION_HEADER, 'x-api-key'];

function traceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

const timedOut = new WeakSet<Request>();

function upstreamError(err: NodeJS.ErrnoException, req: Request): AppError {
  if (timedOut.has(req)) return errors.gatewayTimeout();
  switch (err.code ?? '') {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
      return errors.serviceUnavailable('Upstream service unavailable');
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return errors.gatewayTimeout();
    default:
      return errors.badGateway();
  }
}

/**
 * One streaming proxy per service over a keep-alive agent (without one, every request would
 * open a new connection). Bodies are never parsed here. The assertion, request id and trace
 * context are set on the upstream request; unreachable services become 502/503/504.
 */
export interface ProxyHooks {
  /** Called with the upstream answer before any byte of it reaches the client. */
  onUpstreamResponse?: (req: Request, status: number) => void;
}

export function createServiceProxy(
  service: ServiceName,
  target: string,
  logger: Logger,
  timeoutMs: number,
  hooks: ProxyHooks = {},
): RequestHandler {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 256,
    maxFreeSockets: 64,
    keepAliveMsecs: 1000,
    timeout: 60_000,
  });
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    changeOrigin: false,
    xfwd: true,
    agent,
    proxyTimeout: timeoutMs,
    on: {
      proxyReq: (proxyReq: ClientRequest, req: Request) => {
        // http-proxy aborts on proxyTimeout and reports a plain socket hang-up: remember why.
        proxyReq.on('timeout', () => timedOut.add(req));
        for (const h of STRIPPED) proxyReq.removeHeader(h);
        const state = req.gateway;
        if (state?.assertion) proxyReq.setHeader(ASSERTION_HEADER, state.assertion);
        // The admin token is for the gateway only.
        if (state?.route.auth === 'admin' || state?.route.auth === 'admin-project')
          proxyReq.removeHeader('authorization');
        proxyReq.setHeader('x-request-id', req.id);
        if (!req.header('traceparent')) proxyReq.setHeader('traceparent', traceparent());
      },
      proxyRes: (proxyRes: IncomingMessage, req: Request) => {
        hooks.onUpstreamResponse?.(req, proxyRes.statusCode ?? 0);
      },
      error: (err: NodeJS.ErrnoException, req: Request, res: Response | Socket) => {
        const mapped = upstreamError(err, req);
        logger.warn({ err, service, requestId: req.id, status: mapped.status }, 'upstream error');
        if (!('setHeader' in res)) return void res.destroy();
        if (res.headersSent) return void res.destroy();
        res.status(mapped.status).json(errorBody(mapped.code, mapped.message, req.id));
      },
    },
  });
  return (req, res, next) => {
    // Mounted behind our own router, so restore the full path the service routes on.
    req.url = req.originalUrl;
    // This server already answered `100 Continue`. Passed on, the header would make the upstream
    // request flush its headers at once, before proxyReq could add the assertion and strip the
    // key (curl sends it for every body over 1 MB, so large uploads failed with 401).
    delete req.headers.expect;
    return proxy(req, res, next);
  };
}
