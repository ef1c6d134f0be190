import type { KeyObject } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  AppError,
  consoleSessionTokenHash,
  createMetrics,
  errors,
  pickRequestId,
  setServerRoute,
  signAssertion,
  toAppError,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceName,
} from '@baas/common';
import { matchRoute, mutatedProjectId, type RouteMatch } from './domain/routes';
import { AssertionIssuer } from './domain/assertion-issuer';
import { clientAddress, parseTrustProxy } from './domain/client-address';
import { consoleSessionChange } from './domain/console-access';
import type { ConsoleSessions, ProjectDirectory, RateLimiter } from './ports';
import { applyRateLimits, RefusedAddresses } from './http/rate-limit';
import { adminRateKey, authenticator, isAdminRoute, type AdminCaller } from './http/authenticate';
import { consoleSessionToken } from './http/console-cookie';
import { answerPreflight } from './http/cors';
import { sendError, sendJson, header, type Exchange } from './http/exchange';
import { applyHeaders, securityHeaders } from './http/security-headers';
import { Upstream } from './http/upstream';
import { answerOpenApi } from './http/openapi';
import { answerProjectUsage } from './http/project-usage';
import { ConsoleSite } from './http/console';
import { readiness as readinessAnswer } from './http/health';
import { gatewayMetrics } from './metrics';

export interface GatewayDeps {
  logger: Logger;
  metrics?: Metrics;
  readiness: ReadinessCheck[];
  directory: ProjectDirectory;
  /** Console sessions by cookie (the auth service behind a cache). */
  consoleSessions: ConsoleSessions;
  globalLimiter: RateLimiter;
  authLimiter: RateLimiter;
  /** Admin requests with a credential, per console account or token. */
  adminLimiter: RateLimiter;
  limits: { globalWindowSeconds: number; authWindowSeconds: number; adminWindowSeconds: number };
  /** TRUST_PROXY as express reads it: false, true, a hop count, or addresses/CIDRs/names. */
  trustProxy: string;
  adminToken: string;
  /** The Ed25519 private key that signs assertions (GATEWAY_ASSERTION_PRIVATE_KEY). */
  assertionPrivateKey: KeyObject;
  upstreams: Record<Exclude<ServiceName, 'janitor'>, string>;
  upstreamTimeoutMs: number;
  /** The built web console served under /console (CONSOLE_DIR); absent, /console says so. */
  consoleDir?: string;
}

/** The console's own API (sign-in, session, invitations): the one route group its cookie is for. */
const CONSOLE_API = '/api/console';

/** The console's label for metrics and logs: static files, no service, no caller. */
const CONSOLE_ROUTE: RouteMatch = {
  service: 'gateway',
  auth: 'public',
  prefix: '/console',
  authLimiter: false,
};

export interface GatewayApp {
  /** The request listener for node:http (or supertest). */
  app: RequestListener;
  metrics: Metrics;
  /** Flip readiness to 503 (on SIGTERM) while in-flight requests drain. */
  setDraining: () => void;
  close: () => Promise<void>;
}

/**
 * The gateway: the only door clients use. Each request runs a short list of plain steps on
 * node:http (no framework: this hop is paid on every request) — request id and security headers,
 * health, CORS preflight, route, rate limit, caller, assertion — and is streamed to its service.
 */
export function createApp(deps: GatewayDeps): GatewayApp {
  const metrics = deps.metrics ?? createMetrics('gateway');
  const targets = Object.keys(deps.upstreams) as Array<keyof GatewayDeps['upstreams']>;
  const observer = gatewayMetrics(metrics, targets);
  const trust = parseTrustProxy(deps.trustProxy);
  const headers = securityHeaders();
  const sessions = deps.consoleSessions;
  const auth = authenticator({ directory: deps.directory, adminToken: deps.adminToken, sessions });
  const limits = {
    global: deps.globalLimiter,
    globalWindowSeconds: deps.limits.globalWindowSeconds,
    auth: deps.authLimiter,
    authWindowSeconds: deps.limits.authWindowSeconds,
    admin: deps.adminLimiter,
    adminWindowSeconds: deps.limits.adminWindowSeconds,
    refused: new RefusedAddresses(),
    observer,
  };
  const key = deps.assertionPrivateKey;
  const issuer = new AssertionIssuer((aud, claims) => signAssertion(key, aud, claims));
  const upstreams = new Map<ServiceName, Upstream>(
    targets.map((s) => [
      s,
      new Upstream(s, deps.upstreams[s], deps.logger, deps.upstreamTimeoutMs, observer),
    ]),
  );
  const consoleSite = new ConsoleSite({ dir: deps.consoleDir });
  let draining = false;
  const log = deps.logger;

  function finished(ex: Exchange, started: number): void {
    const status = ex.res.statusCode;
    const seconds = (performance.now() - started) / 1000;
    metrics.httpDuration.observe(
      { method: ex.req.method ?? '', route: ex.route?.prefix ?? 'unmatched', status_code: String(status) },
      seconds,
    );
    const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    if (log.isLevelEnabled(level))
      log[level](
        {
          req: { id: ex.id, method: ex.req.method, url: ex.path },
          res: { statusCode: status },
          requestId: ex.id,
          projectId: ex.project?.projectId,
          responseTime: Math.round(seconds * 1000),
          // who is being refused: the address a limit counted (or the caller an account
          // throttle behind the gateway refused), and which of the gateway's limiters it was
          ...(status === 429 && { clientIp: ex.ip, limiter: ex.limitedBy }),
        },
        'request completed',
      );
  }

  function forgetConsoleSessions(ex: Exchange, method: string): void {
    const change = consoleSessionChange(method, ex.path);
    if (!change) return;
    switch (change.kind) {
      case 'account':
        sessions.invalidateAccount?.(change.accountId);
        return;
      case 'caller': {
        const token = consoleSessionToken(ex.req);
        if (token) sessions.forgetSession?.(consoleSessionTokenHash(token));
        return;
      }
      case 'all':
        sessions.clear?.();
        return;
    }
  }

  async function handle(ex: Exchange): Promise<void> {
    const { req, res } = ex;
    if (ex.path === '/livez') return sendJson(res, 200, { status: 'ok' });
    if (ex.path === '/readyz') return readinessAnswer(res, deps.readiness, draining);
    if (ConsoleSite.owns(ex.path)) {
      ex.route = CONSOLE_ROUTE;
      return consoleSite.answer(ex);
    }
    res.setHeader('Vary', 'Origin');
    if (answerPreflight(ex)) return;
    ex.route = matchRoute(ex.path);
    if (!ex.route) return sendError(ex, errors.routeNotFound());
    setServerRoute(ex.route.prefix);
    // Admin routes (and the console's session check): the caller first, as the admin limit is
    // per caller (see rate-limit.ts).
    let caller: AdminCaller | undefined;
    const admin = isAdminRoute(ex.route);
    const perCaller = admin || ex.route.perCaller === true;
    if (perCaller) caller = await auth.identifyAdmin(ex, !limits.refused.has(ex.ip));
    const limited = await applyRateLimits(
      ex,
      limits,
      perCaller ? { key: caller && adminRateKey(caller) } : undefined,
    );
    if (limited) return sendError(ex, limited);
    const refused = await auth.authenticate(ex, caller);
    if (refused) return sendError(ex, refused);
    const route = ex.route;
    const claims = ex.claims;
    if (!claims) return sendError(ex, errors.routeNotFound());
    if (route.service === 'gateway') {
      if (route.answer === 'openapi') return answerOpenApi(ex);
      if (route.answer === 'project-usage' && (req.method === 'GET' || req.method === 'HEAD'))
        return answerProjectUsage(ex, upstreams, (service) => issuer.issue(service, claims, ex.project));
      return sendError(ex, errors.routeNotFound());
    }
    const upstream = upstreams.get(route.service);
    if (!upstream) return sendError(ex, errors.routeNotFound());
    const assertion = await issuer.issue(route.service, claims, ex.project);
    await upstream.forward(ex, {
      assertion,
      dropAuthorization: admin,
      dropConsoleCookie: route.prefix !== CONSOLE_API && !route.prefix.startsWith(`${CONSOLE_API}/`),
      onResponse: (status) => {
        // A key rotated, a project changed or a console session revoked through this gateway is
        // refused here at once; other replicas learn it from the auth service's NATS announcements.
        if (status < 200 || status >= 300) return;
        const method = req.method ?? '';
        if (route.auth === 'admin') {
          const id = mutatedProjectId(method, ex.path);
          if (id) deps.directory.invalidateProject?.(id);
        }
        // only the auth service's routes change console sessions
        if (route.service === 'auth') forgetConsoleSessions(ex, method);
      },
    });
  }

  const app: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const ex: Exchange = {
      req,
      res,
      id: pickRequestId(header(req, 'x-request-id')),
      path: q < 0 ? url : url.slice(0, q),
      ip: clientAddress(req, trust),
    };
    res.setHeader('x-request-id', ex.id);
    applyHeaders(res, headers);
    res.once('finish', () => finished(ex, started));
    metrics.inFlight.inc();
    res.once('close', () => metrics.inFlight.dec());
    handle(ex).catch((err: unknown) => {
      const known = toAppError(err);
      if (!known) log.error({ err, requestId: ex.id, projectId: ex.project?.projectId }, 'unhandled error');
      sendError(ex, known ?? new AppError(500, 'INTERNAL', 'Internal server error'));
    });
  };

  return {
    app,
    metrics,
    setDraining: () => {
      draining = true;
    },
    close: async () => {
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },
  };
}
