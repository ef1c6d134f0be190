import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import {
  assertionKey,
  createServiceApp,
  errors,
  signAssertion,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
  type ServiceName,
} from '@baas/common';
import { matchRoute, mutatedProjectId } from './domain/routes';
import type { ProjectDirectory, RateLimiter } from './ports';
import { rateLimitMiddleware } from './http/rate-limit.middleware';
import { authenticateMiddleware } from './http/authenticate.middleware';
import { corsPreflight } from './http/cors.middleware';
import { createServiceProxy } from './http/proxy';
import './http/state';

export interface GatewayDeps {
  logger: Logger;
  metrics?: Metrics;
  readiness: ReadinessCheck[];
  directory: ProjectDirectory;
  globalLimiter: RateLimiter;
  authLimiter: RateLimiter;
  limits: { globalWindowSeconds: number; authWindowSeconds: number };
  trustProxy: 'false' | 'loopback';
  adminToken: string;
  assertionSecret: string;
  upstreams: Record<Exclude<ServiceName, 'janitor'>, string>;
  upstreamTimeoutMs: number;
}

/** The gateway: the only door clients use. Cheap rejections run first, bodies stream through. */
export function createApp(deps: GatewayDeps): ServiceApp {
  const svc = createServiceApp({
    service: 'gateway',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
    metricsRoute: false,
  });
  const { app } = svc;
  app.set('trust proxy', deps.trustProxy === 'loopback' ? 'loopback' : false);
  app.use(helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } }));
  app.use(corsPreflight);
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const route = matchRoute(req.path);
    if (!route) return next(errors.routeNotFound());
    req.gateway = { route };
    next();
  });
  app.use(
    rateLimitMiddleware({
      global: deps.globalLimiter,
      globalWindowSeconds: deps.limits.globalWindowSeconds,
      auth: deps.authLimiter,
      authWindowSeconds: deps.limits.authWindowSeconds,
    }),
  );
  app.use(authenticateMiddleware({ directory: deps.directory, adminToken: deps.adminToken }));
  const key = assertionKey(deps.assertionSecret);
  app.use(async (req: Request, _res: Response, next: NextFunction) => {
    const state = req.gateway;
    if (!state?.claims) return next(errors.routeNotFound());
    state.assertion = await signAssertion(key, state.route.service, state.claims);
    next();
  });
  const proxies = Object.fromEntries(
    (Object.keys(deps.upstreams) as Array<keyof GatewayDeps['upstreams']>).map((s) => [
      s,
      createServiceProxy(s, deps.upstreams[s], deps.logger, deps.upstreamTimeoutMs, {
        // A key rotated or a project changed through this gateway is refused here at once; other
        // replicas learn it from the auth service's NATS invalidation.
        onUpstreamResponse: (req, status) => {
          if (status < 200 || status >= 300 || req.gateway?.route.auth !== 'admin') return;
          const id = mutatedProjectId(req.method, req.path);
          if (id) deps.directory.invalidateProject?.(id);
        },
      }),
    ]),
  );
  app.use((req: Request, res: Response, next: NextFunction) => {
    const proxy = proxies[req.gateway?.route.service ?? ''];
    if (!proxy) return next(errors.routeNotFound());
    return proxy(req, res, next);
  });
  svc.finish();
  return svc;
}
