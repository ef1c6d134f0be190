import type { KeyObject } from 'node:crypto';
import {
  createServiceApp,
  requireGatewayAssertion,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type ServiceApp,
} from '@baas/common';
import type { ProjectDeps } from './domain/projects/deps';
import type { AuthDeps } from './domain/deps';
import { adminProjectRoutes } from './http/admin-projects.routes';
import { adminUserRoutes } from './http/admin-users.routes';
import { adminSigningKeyRoutes } from './http/admin-signing-keys.routes';
import { adminAuditRoutes } from './http/admin-audit.routes';
import type { AuditLog } from './ports';
import type { ConsoleDeps } from './domain/console/deps';
import { consoleRoutes } from './http/console.routes';
import { adminConsoleRoutes } from './http/admin-console.routes';
import { adminMemberRoutes } from './http/admin-members.routes';
import { internalRoutes } from './http/internal.routes';
import { jwksRoutes } from './http/jwks.routes';
import { userAuthRoutes } from './http/user-auth.routes';

export interface AuthAppDeps {
  logger: Logger;
  /** The gateway's public key(s) (GATEWAY_ASSERTION_PUBLIC_KEY, during a rotation also the previous): verify, never sign. */
  assertionPublicKey: KeyObject | readonly KeyObject[];
  readiness: ReadinessCheck[];
  /** The process's registry (one is made when not given). */
  metrics?: Metrics;
  projects: ProjectDeps;
  auth: AuthDeps;
  /** The audit log (read here; appended by the `audit.recorded` consumer and signing-key rotation). */
  audit: AuditLog;
  /** Console accounts, sessions, memberships and invitations. */
  console: ConsoleDeps;
}

/** The auth service's HTTP app; what tests build with real adapters. */
export function createApp(deps: AuthAppDeps): ServiceApp {
  const svc = createServiceApp({
    service: 'auth',
    logger: deps.logger,
    readiness: deps.readiness,
    metrics: deps.metrics,
  });
  const { app } = svc;
  // Public: verifiers fetch the keys directly, without an assertion.
  app.use(jwksRoutes(deps.auth.keys));
  app.use(requireGatewayAssertion(deps.assertionPublicKey, 'auth'));
  app.use('/internal', internalRoutes(deps.projects, deps.console));
  app.use('/api/userAuth', userAuthRoutes(deps.auth, deps.projects.projects));
  app.use('/api/console', consoleRoutes(deps.console));
  app.use('/api/admin/console', adminConsoleRoutes(deps.console));
  app.use(adminAuditRoutes(deps.audit, deps.projects.projects, deps.console.members));
  // Before the projects router, whose own middleware would parse and guard these paths too.
  app.use('/api/admin/projects', adminMemberRoutes(deps.console));
  app.use('/api/admin/projects', adminUserRoutes(deps.auth, deps.projects.projects));
  app.use('/api/admin/projects', adminProjectRoutes(deps.projects));
  app.use('/api/admin/signing-keys', adminSigningKeyRoutes(deps.auth.keys, deps.audit));
  svc.finish();
  return svc;
}
