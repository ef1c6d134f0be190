import type { KeyObject } from 'node:crypto';
import {
  createServiceApp,
  requireGatewayAssertion,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { FileDeps } from './domain/files/deps';
import { storageRoutes } from './http/storage.routes';
import { publicFileRoutes } from './http/public-files.routes';
import { adminUsageRoutes } from './http/admin-usage.routes';
import { adminFileRoutes } from './http/admin-files.routes';

export interface StorageAppDeps {
  logger: Logger;
  /** The gateway's public key(s) (GATEWAY_ASSERTION_PUBLIC_KEY, during a rotation also the previous): verify, never sign. */
  assertionPublicKey: KeyObject | readonly KeyObject[];
  readiness: ReadinessCheck[];
  /** The process's registry (one is made when not given). */
  metrics?: Metrics;
  files: FileDeps;
}

/** The storage service's HTTP app; what tests build with real adapters. */
export function createApp(deps: StorageAppDeps): ServiceApp {
  const svc = createServiceApp({
    service: 'storage',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
  });
  const { app } = svc;
  app.use(requireGatewayAssertion(deps.assertionPublicKey, 'storage'));
  app.use('/api/storage', storageRoutes(deps.files));
  app.use('/api/admin/projects', adminUsageRoutes(deps.files));
  app.use('/api/admin/projects', adminFileRoutes(deps.files));
  app.use('/files', publicFileRoutes(deps.files, deps.logger));
  svc.finish();
  return svc;
}
