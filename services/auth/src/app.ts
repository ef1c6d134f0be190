import {
  assertionKey,
  createServiceApp,
  requireGatewayAssertion,
  type Logger,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { ProjectDeps } from './domain/projects/deps';
import { adminProjectRoutes } from './http/admin-projects.routes';
import { internalRoutes } from './http/internal.routes';

export interface AuthAppDeps {
  logger: Logger;
  assertionSecret: string;
  readiness: ReadinessCheck[];
  projects: ProjectDeps;
}

/** The auth service's HTTP app; what tests build with real adapters. */
export function createApp(deps: AuthAppDeps): ServiceApp {
  const svc = createServiceApp({ service: 'auth', logger: deps.logger, readiness: deps.readiness });
  const { app } = svc;
  app.use(requireGatewayAssertion(assertionKey(deps.assertionSecret), 'auth'));
  app.use('/internal', internalRoutes(deps.projects));
  app.use('/api/admin/projects', adminProjectRoutes(deps.projects));
  svc.finish();
  return svc;
}
