import type { NatsConnection } from '@nats-io/nats-core';
import { INVALIDATION_SUBJECT, type ProjectId } from '@baas/common';
import type { CacheInvalidator } from '../ports';

/** Core NATS (fire and forget): gateways drop the project's cached keys within milliseconds. */
export class NatsCacheInvalidator implements CacheInvalidator {
  constructor(private readonly nc: NatsConnection) {}
  projectChanged(projectId: ProjectId): void {
    this.nc.publish(INVALIDATION_SUBJECT, JSON.stringify({ projectId }));
  }
}
