import type { NatsConnection } from '@nats-io/nats-core';
import {
  CONSOLE_INVALIDATION_SUBJECT,
  INVALIDATION_SUBJECT,
  publishTraced,
  type ProjectId,
} from '@baas/common';
import type { CacheInvalidator } from '../ports';

/**
 * Core NATS (fire and forget): gateways drop the project's cached keys, or the console account's
 * cached session resolutions, within milliseconds. Each publish is a PRODUCER span whose context
 * the gateways' handling continues (nats-tracing.ts).
 */
export class NatsCacheInvalidator implements CacheInvalidator {
  constructor(private readonly nc: NatsConnection) {}
  projectChanged(projectId: ProjectId): void {
    publishTraced(this.nc, INVALIDATION_SUBJECT, JSON.stringify({ projectId }));
  }
  consoleAccountChanged(accountId: string): void {
    publishTraced(this.nc, CONSOLE_INVALIDATION_SUBJECT, JSON.stringify({ accountId }));
  }
}
