import type { GatewayAssertion } from '@baas/common';
import type { RouteMatch } from '../domain/routes';
import type { ResolvedProject } from '../ports';

/** What the gateway's middlewares learn about a request, in the order they run. */
export interface GatewayState {
  route: RouteMatch;
  project?: ResolvedProject;
  claims?: GatewayAssertion;
  /** Signed assertion for the target service. */
  assertion?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    gateway?: GatewayState;
  }
}
