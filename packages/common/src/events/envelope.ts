import { randomUUID } from 'node:crypto';
import type { ProjectId } from '../tenancy';
import { currentContext, currentTraceparent } from '../request-context';
import { EVENT_VERSIONS, type EventCatalogue, type EventType } from './catalogue';

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  version: number;
  occurredAt: string;
  projectId: ProjectId;
  requestId: string | null;
  /** W3C traceparent of the request that caused the event, when there was one. */
  traceparent?: string;
  data: EventCatalogue[T];
}

export function createEvent<T extends EventType>(
  type: T,
  projectId: ProjectId,
  data: EventCatalogue[T],
  meta: { requestId?: string | null; traceparent?: string } = {},
): EventEnvelope<T> {
  const e: EventEnvelope<T> = {
    id: randomUUID(),
    type,
    version: EVENT_VERSIONS[type],
    occurredAt: new Date().toISOString(),
    projectId,
    requestId: meta.requestId ?? currentContext()?.requestId ?? null,
    data,
  };
  // The trace of the request (or event) being handled, unless the caller names another.
  const traceparent = meta.traceparent ?? currentTraceparent();
  if (traceparent) e.traceparent = traceparent;
  return e;
}

export const EVENTS_STREAM = 'BAAS_EVENTS';
export const EVENTS_SUBJECT_PREFIX = 'baas.events';
export const DLQ_STREAM = 'BAAS_DLQ';
export const DLQ_SUBJECT_PREFIX = 'baas.dlq';
/** Core NATS subject for fast cache invalidation (keys rotated, project changed or deleted). */
export const INVALIDATION_SUBJECT = 'baas.cache.invalidate';

export function subjectFor(type: EventType): string {
  return `${EVENTS_SUBJECT_PREFIX}.${type}`;
}
