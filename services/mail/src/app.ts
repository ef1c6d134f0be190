import type { KeyObject } from 'node:crypto';
import {
  createServiceApp,
  requireGatewayAssertion,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { MailDeps } from './domain/deps';
import { sendRoutes } from './http/send.routes';
import { adminGlobalMailRoutes, adminProjectMailRoutes } from './http/admin-templates.routes';

export interface MailAppDeps {
  logger: Logger;
  /** The gateway's public key(s) (GATEWAY_ASSERTION_PUBLIC_KEY, during a rotation also the previous): verify, never sign. */
  assertionPublicKey: KeyObject | readonly KeyObject[];
  readiness: ReadinessCheck[];
  /** The process's registry (one is made when not given). */
  metrics?: Metrics;
  mail: MailDeps;
}

/** The mail service's HTTP app; what tests build with real adapters. */
export function createApp(deps: MailAppDeps): ServiceApp {
  const svc = createServiceApp({
    service: 'mail',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
  });
  const { app } = svc;
  app.use(requireGatewayAssertion(deps.assertionPublicKey, 'mail'));
  app.use('/api/mail', sendRoutes(deps.mail));
  app.use('/api/admin/projects/:projectId/mail', adminProjectMailRoutes(deps.mail));
  app.use('/api/admin/mail', adminGlobalMailRoutes(deps.mail));
  svc.finish();
  return svc;
}
