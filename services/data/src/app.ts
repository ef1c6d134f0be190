import type { KeyObject } from 'node:crypto';
import {
  createServiceApp,
  requireGatewayAssertion,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { DataDeps } from './ports';
import { adminCollectionRoutes } from './http/admin-collections.routes';
import { adminDocumentRoutes, dataRoutes } from './http/data.routes';
import { adminUsageRoutes } from './http/admin-usage.routes';

export interface DataAppDeps {
  logger: Logger;
  /** The gateway's public key(s) (GATEWAY_ASSERTION_PUBLIC_KEY, during a rotation also the previous): verify, never sign. */
  assertionPublicKey: KeyObject | readonly KeyObject[];
  readiness: ReadinessCheck[];
  /** The process's registry (one is made when not given). */
  metrics?: Metrics;
  data: DataDeps;
}

/** The data service's HTTP app; what tests build with real adapters. */
export function createApp(deps: DataAppDeps): ServiceApp {
  const svc = createServiceApp({
    service: 'data',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
  });
  const { app } = svc;
  app.use(requireGatewayAssertion(deps.assertionPublicKey, 'data'));
  // Before the collection routes, whose JSON parser (100 KB) would read document bodies first.
  app.use('/api/admin/projects/:projectId/documents', adminDocumentRoutes(deps.data));
  app.use('/api/admin/projects', adminCollectionRoutes(deps.data));
  app.use('/api/admin/projects', adminUsageRoutes(deps.data));
  app.use('/api/data', dataRoutes(deps.data));
  svc.finish();
  return svc;
}
