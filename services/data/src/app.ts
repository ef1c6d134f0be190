import type { KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import {
  assertionMiddleware,
  createServiceApp,
  gatewayAssertionCheck,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { DataDeps } from './ports';
import { adminCollectionRoutes } from './http/admin-collections.routes';
import { adminDocumentRoutes, dataRoutes } from './http/data.routes';
import { adminUsageRoutes } from './http/admin-usage.routes';
import { withHotRoutes } from './http/hot-routes';

export interface DataAppDeps {
  logger: Logger;
  /** The gateway's public key(s) (GATEWAY_ASSERTION_PUBLIC_KEY, during a rotation also the previous): verify, never sign. */
  assertionPublicKey: KeyObject | readonly KeyObject[];
  readiness: ReadinessCheck[];
  /** The process's registry (one is made when not given). */
  metrics?: Metrics;
  data: DataDeps;
  /** Serve the hot document routes without express (default); tests compare both ways. */
  hotRoutes?: boolean;
}

/** The data service's HTTP listener: what main.ts serves and tests build with real adapters. */
export interface DataApp extends Omit<ServiceApp, 'app' | 'finish'> {
  app: RequestListener;
}

/** The data service's HTTP app; what tests build with real adapters. */
export function createApp(deps: DataAppDeps): DataApp {
  const svc = createServiceApp({
    service: 'data',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
  });
  const { app } = svc;
  const check = gatewayAssertionCheck(deps.assertionPublicKey, 'data');
  app.use(assertionMiddleware(check));
  // Before the collection routes, whose JSON parser (100 KB) would read document bodies first.
  app.use('/api/admin/projects/:projectId/documents', adminDocumentRoutes(deps.data));
  app.use('/api/admin/projects', adminCollectionRoutes(deps.data));
  app.use('/api/admin/projects', adminUsageRoutes(deps.data));
  app.use('/api/data', dataRoutes(deps.data));
  svc.finish();
  return {
    app:
      deps.hotRoutes === false
        ? app
        : withHotRoutes(app, { data: deps.data, logger: deps.logger, metrics: svc.metrics, check }),
    metrics: svc.metrics,
    setDraining: svc.setDraining,
  };
}
